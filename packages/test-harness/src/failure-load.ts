import {
  type ConsumeItem,
  createLimiter,
  type Decision,
  type FailMode,
  fixedWindow,
  type Limiter,
  type LimiterOptions,
  MemoryStore,
  type Store,
} from '@floodgate/core'
import { afterAll, beforeAll, expect } from 'vitest'

// What the failure tests of every remote store share: load that records every outcome, one limiter per
// failure mode over the store (the limiter's `failMode` decides what a request gets when the store cannot
// answer), and the checks. Assertions count outcomes; the only clock read is each request's own latency.

/** The name of each failure mode: `failMode: 'open'`, `'closed'`, `{ fallback }`. */
export type FailModeName = 'open' | 'closed' | 'fallback'

/** Every failure mode, in the order the tests go through them. */
export const FAIL_MODES: readonly FailModeName[] = ['open', 'closed', 'fallback']

/** The `failMode` option of a mode (a fresh MemoryStore for `'fallback'`). */
export function failModeOf(mode: FailModeName): FailMode {
  return mode === 'fallback' ? { fallback: new MemoryStore() } : mode
}

/** A limiter under load: its decisions say where they came from (`'redis'`, `'postgres'`, or a failure mode). */
export interface SourcedLimiter {
  consume(key: string): Promise<Decision & { source?: string }>
}

/** One decision of the load. */
export interface LoadRecord {
  mode: FailModeName
  key: string
  source: string
  allowed: boolean
  ms: number
}

/**
 * A limiter of each failure mode over `store` (on `algorithm`, bounded by `storeTimeout` ms), each under its own
 * prefix so that their keys never meet.
 */
export function limitersByFailMode(
  store: Store,
  options: Pick<LimiterOptions, 'algorithm'> & { storeTimeout: number },
): Map<FailModeName, Limiter> {
  return new Map(
    FAIL_MODES.map((mode) => [
      mode,
      createLimiter({
        store,
        algorithm: options.algorithm,
        prefix: `failure-${mode}`,
        failMode: failModeOf(mode),
        storeTimeout: options.storeTimeout,
      }),
    ]),
  )
}

/** Collect unhandled rejections while the file runs (there must be none). */
export function watchUnhandled(): unknown[] {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  beforeAll(() => {
    process.on('unhandledRejection', onUnhandled)
  })
  afterAll(() => {
    process.off('unhandledRejection', onUnhandled)
  })
  return unhandled
}

/** Wait (on events, polling the outcome count) until `done()`; the test's own timeout bounds it. */
export async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10))
}

/** What {@link failureLoad} runs. */
export interface FailureLoadOptions {
  /** A limiter per failure mode (see {@link limitersByFailMode}). */
  limiters: Map<FailModeName, SourcedLimiter>
  /** The `source` of a decision the backend took: `'redis'`, `'postgres'`. */
  backend: string
  /** Requests in flight per limiter. */
  inFlight: number
  /** How many keys the load goes round (on a Cluster they spread over every master). */
  keys?: number
}

/** Load running on every store: what it recorded so far, and ways to wait on it. */
export interface FailureLoad {
  readonly records: LoadRecord[]
  /** Decisions that rejected (there must be none). */
  readonly rejected: unknown[]
  count(test: (r: LoadRecord) => boolean): number
  /**
   * Wait until every mode has `atLeast` decisions from the backend (`fromBackend`) or not from it, among the
   * records from the `since`-th on.
   */
  eachMode(atLeast: number, fromBackend: boolean, since?: number): Promise<void>
  /** Whether, for every mode, every key has had a decision from the backend since the `from`-th record. */
  allKeysFromBackendSince(from: number): boolean
  stop(): Promise<void>
}

/** Keep `inFlight` requests per limiter going until stopped, 2 ms apart; record every outcome. */
export function failureLoad(options: FailureLoadOptions): FailureLoad {
  const { limiters, backend, inFlight, keys = 50 } = options
  const records: LoadRecord[] = []
  const rejected: unknown[] = []
  let running = true
  let next = 0
  const worker = async (mode: FailModeName, limiter: SourcedLimiter) => {
    while (running) {
      const start = performance.now()
      try {
        const key = `load-${next++ % keys}`
        const d = await limiter.consume(key)
        const source = d.source ?? 'unknown'
        records.push({ mode, key, source, allowed: d.allowed, ms: performance.now() - start })
      } catch (error) {
        rejected.push(error)
      }
      await new Promise((r) => setTimeout(r, 2))
    }
  }
  const workers = [...limiters].flatMap(([mode, limiter]) =>
    Array.from({ length: inFlight }, () => worker(mode, limiter)),
  )
  const modes = [...limiters.keys()]
  return {
    records,
    rejected,
    count: (test) => records.filter(test).length,
    eachMode(atLeast, fromBackend, since = 0) {
      const counted = (m: FailModeName) =>
        records.slice(since).filter((r) => r.mode === m && (r.source === backend) === fromBackend).length
      return until(() => modes.every((m) => counted(m) >= atLeast))
    },
    allKeysFromBackendSince(from) {
      const seen = new Set(
        records
          .slice(from)
          .filter((r) => r.source === backend)
          .map((r) => `${r.mode} ${r.key}`),
      )
      return seen.size === modes.length * keys
    },
    async stop() {
      running = false
      await Promise.all(workers)
    },
  }
}

/** Every decision the backend did not take is as its limiter's failure mode says. */
export function expectModesHonoured(records: readonly LoadRecord[], backend: string): void {
  for (const r of records.filter((r) => r.source !== backend)) {
    if (r.mode === 'open') expect(r).toMatchObject({ source: 'fail-open', allowed: true })
    if (r.mode === 'closed') expect(r).toMatchObject({ source: 'fail-closed', allowed: false })
    if (r.mode === 'fallback') expect(r).toMatchObject({ source: 'fallback', allowed: true })
  }
}

/**
 * What every failure test checks once its load has stopped: no decision rejected, no unhandled rejection,
 * none slower than `boundMs` (the limiter's `storeTimeout` plus scheduling slack), every degraded decision as
 * its failure mode says.
 */
export function expectBoundedAndHonoured(
  run: FailureLoad,
  checks: { unhandled: readonly unknown[]; boundMs: number; backend: string },
): void {
  expect(run.rejected).toEqual([])
  expect(checks.unhandled).toEqual([])
  expect(run.count((r) => r.ms > checks.boundMs)).toBe(0)
  expectModesHonoured(run.records, checks.backend)
}

/** A store whose backend is about to stop answering, and a limiter over it with `failMode: { fallback }`. */
export interface FallingBack {
  store: Store & { consumeAll(items: readonly ConsumeItem[]): Promise<Decision[]> }
  /** The `source` of a decision the backend took: `'redis'`, `'postgres'`. */
  backend: string
  /** The store's error codes: when its call timed out, and while its circuit is open. */
  codes: { timeout: string; unavailable: string }
  /** The limiter's `storeTimeout`, in ms. */
  storeTimeout: number
  /** Make the backend stop answering (SIGSTOP a server, or its connection's process). */
  freeze(): Promise<void> | void
}

/**
 * The operations beside consume, while the backend does not answer. The store itself rejects each (peek,
 * consumeAll, refund) with its typed error, the first one as a timeout: it reports that it could not answer,
 * it decides nothing. A limiter over it with `failMode: { fallback }`, with one unit of key `k` spent through
 * the backend first, has its peek decided by the fallback store (which has spent nothing: a limit of 2 left),
 * and its refund resolves. The backend is left frozen: thaw it after.
 */
export async function expectOperationsFallBack(parts: FallingBack): Promise<void> {
  const { store, codes } = parts
  const small = fixedWindow({ limit: 2, window: '1h' })
  const fallback = new MemoryStore()
  const limiter = createLimiter({
    store,
    algorithm: small,
    failMode: { fallback },
    storeTimeout: parts.storeTimeout,
  })
  expect(((await limiter.consume('k')) as Decision & { source?: string }).source).toBe(parts.backend)
  await parts.freeze()
  const failed = { code: expect.stringMatching(`^(${codes.timeout}|${codes.unavailable})$`) }
  await expect(store.peek(small, 'k', 1)).rejects.toMatchObject({ code: codes.timeout })
  await expect(
    store.consumeAll([
      { algorithm: small, key: 'k', cost: 1 },
      { algorithm: small, key: 'j', cost: 1 },
    ]),
  ).rejects.toMatchObject(failed)
  await expect(store.refund(small, 'k', 1)).rejects.toMatchObject(failed)
  const peek = (await limiter.peek('k')) as Decision & { source?: string }
  expect(peek.source).toBe('fallback')
  expect(peek.remaining).toBe(2)
  await expect(limiter.refund('k')).resolves.toBeUndefined()
  expect((await limiter.peek('k')).remaining).toBe(2)
}

/**
 * `store`, bounded by `ms` (`answerWithin`, as a limiter's `storeTimeout` would bound it): for tests that call a
 * remote store directly on a busy machine, where the default bound (500 ms) is too tight.
 *
 * @example const store = bounded(new RedisStore({ client }), 5000)
 */
export function bounded<S extends Store>(store: S, ms: number): S {
  store.answerWithin?.(ms)
  return store
}
