import { type ConsumeItem, MemoryStore, type Store } from '@floodgate/core'
import type { StoreFactory } from '@floodgate/test-harness'
import { type VirtualClock, virtualClock } from '@floodgate/testing'
import { afterAll, afterEach, beforeAll } from 'vitest'
import type { AdapterApp, AdapterAppSetup, AdapterDriver } from './types.js'

/** 2026-01-01T12:00:00Z: aligned to every window the tests use. */
export const START = Date.UTC(2026, 0, 1, 12)

/** An `X-Forwarded-For` header. */
export const fwd = (ip: string) => ({ 'X-Forwarded-For': ip })

/** A store that records refunds, so tests can wait for the ones made when a response finished. */
export interface WatchedStore extends Store {
  refunds: number
  /** Leases given back (`release`, a `concurrency` policy's units). */
  releases: number
  /** Settled costs charged above their estimate (`charge`). */
  charges: number
}

function watched(store: Store): WatchedStore {
  const wrapper: WatchedStore = {
    refunds: 0,
    releases: 0,
    charges: 0,
    consume: (a, k, c, now) => store.consume(a, k, c, now),
    peek: (a, k, c, now) => store.peek(a, k, c, now),
    async refund(a, k, c, now) {
      await store.refund(a, k, c, now)
      wrapper.refunds++
    },
    reset: (a, k) => store.reset(a, k),
    close: () => undefined,
  }
  if (store.consumeAll)
    wrapper.consumeAll = (items: readonly ConsumeItem[], now?: number) => store.consumeAll!(items, now)
  if (store.charge) {
    wrapper.charge = async (a, k, c, now) => {
      await store.charge!(a, k, c, now)
      wrapper.charges++
    }
  }
  if (store.release) {
    wrapper.release = async (a, k, lease, now) => {
      await store.release!(a, k, lease, now)
      wrapper.releases++
    }
  }
  if (store.answerWithin) wrapper.answerWithin = (ms: number) => store.answerWithin!(ms)
  if (store.writeSettings) {
    wrapper.readSettings = (name) => store.readSettings!(name)
    wrapper.writeSettings = (name, field, value) => store.writeSettings!(name, field, value)
    wrapper.watchSettings = (name, watcher) => store.watchSettings!(name, watcher)
  }
  if (store.unban) wrapper.unban = (key: string) => store.unban!(key)
  return wrapper
}

/** A MemoryStore that records every key it is asked to count, in order. */
export function recordingStore(): Store & { keys: string[] } {
  const memory = new MemoryStore()
  const keys: string[] = []
  return {
    keys,
    consume(a, k, c, n) {
      keys.push(k)
      return memory.consume(a, k, c, n)
    },
    peek: (a, k, c, n) => memory.peek(a, k, c, n),
    refund: (a, k, c, n) => memory.refund(a, k, c, n),
    reset: (a, k) => memory.reset(a, k),
    close: () => memory.close(),
  }
}

/** The endpoint part (`GET /users/:id`) of each key that has one. */
export const endpointsOf = (keys: readonly string[]): string[] =>
  keys.flatMap((key) => /endpoint:([^|}]*)/.exec(key)?.[1] ?? [])

/** A broken store: every call throws, rejects, or never answers. */
export function brokenStore(how: 'throw' | 'reject' | 'hang'): Store {
  const fail = (): any => {
    if (how === 'throw') throw new Error('store is down')
    if (how === 'reject') return Promise.reject(new Error('store is down'))
    return new Promise(() => {})
  }
  return { consume: fail, consumeAll: fail, peek: fail, refund: fail, reset: fail, close: () => undefined }
}

/** What every scenario gets: apps on the store under test and a virtual clock, and ways to send requests. */
export interface SuiteContext {
  readonly clock: VirtualClock
  /** The store of the latest app, watched for refunds. */
  store(): WatchedStore
  /** An app whose limiters (and slow-down) get the store, the virtual clock and a prefix unique to the test. */
  app(setup: AdapterAppSetup): Promise<AdapterApp>
  /** An app built from `setup` as it is (its own store), closed after the test. */
  bareApp(setup: AdapterAppSetup): Promise<AdapterApp>
  get(app: AdapterApp, path?: string, headers?: Record<string, string>): ReturnType<AdapterApp['request']>
  /** The statuses of `n` requests sent one after another. */
  statuses(app: AdapterApp, n: number, path?: string, headers?: Record<string, string>): Promise<number[]>
}

/**
 * Set up the apps of one describe block: the store from `factory` (created once), apps closed after each
 * test. Call inside a `describe`.
 */
export function suiteContext(driver: AdapterDriver, factory: StoreFactory): SuiteContext {
  let base: Store
  let store: WatchedStore
  let apps: AdapterApp[] = []
  let run = 0
  const clock = virtualClock(START)

  beforeAll(async () => {
    base = await factory.create()
  })
  afterAll(async () => {
    if (factory.destroy) await factory.destroy(base)
    else await base.close()
  })
  afterEach(async () => {
    await Promise.all(apps.map((app) => app.close()))
    apps = []
  })

  const track = async (built: AdapterApp | Promise<AdapterApp>) => {
    const app = await built
    apps.push(app)
    return app
  }
  const get: SuiteContext['get'] = (a, path = '/', headers) => a.request({ path, headers })

  return {
    clock,
    store: () => store,
    app(setup) {
      run++
      clock.set(START)
      store = watched(base)
      // A bound for a busy machine: the store under test answers within 5 s or the limiter's failMode decides.
      const shared = {
        store,
        clock: clock.now,
        prefix: `adapters-${process.pid}-${START}-${run}`,
        storeTimeout: '5s',
      }
      return track(
        driver.createApp({
          ...setup,
          options: setup.options && { ...shared, ...setup.options },
          degradation: setup.degradation?.slowDown
            ? { ...setup.degradation, slowDown: { ...shared, ...setup.degradation.slowDown } }
            : setup.degradation,
          routes: setup.routes?.map((route) =>
            route.rateLimit ? { ...route, rateLimit: { ...shared, ...route.rateLimit } } : route,
          ),
        }),
      )
    },
    bareApp(setup) {
      run++
      return track(driver.createApp(setup))
    },
    get,
    async statuses(a, n, path = '/', headers) {
      const out: number[] = []
      for (let i = 0; i < n; i++) out.push((await get(a, path, headers)).status)
      return out
    },
  }
}

/** Apps built in a test, closed after it: `const open = openApps(); const app = open(await driver.createApp(...))`. */
export function openApps(): <A extends AdapterApp>(app: A) => A {
  const apps: AdapterApp[] = []
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()))
  })
  return (app) => {
    apps.push(app)
    return app
  }
}

/** The statuses of `n` requests sent one after another. */
export async function statusesOf(
  app: AdapterApp,
  n: number,
  request: { path?: string; method?: string; headers?: Record<string, string> } = {},
): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) out.push((await app.request({ path: '/', ...request })).status)
  return out
}

/** Errors reported to `onError`, with their codes. */
export function errorLog(): { onError: (error: unknown) => void; codes: () => string[]; errors: unknown[] } {
  const errors: unknown[] = []
  return {
    errors,
    onError: (error) => errors.push(error),
    codes: () => errors.map((e) => (e as { code?: string }).code ?? String(e)),
  }
}
