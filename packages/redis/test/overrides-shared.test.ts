// Runtime overrides are kept in Redis: a change made through one server's middleware is applied by another
// server's within the store's `settingsInterval`, without a restart.
import { fixedWindow, type Outcome } from '@floodgate/core'
import { createRateLimitHandler, type RateLimitHandler } from '@floodgate/core/internal'
import type { Redis } from 'ioredis'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { RedisStore, SyncedStore } from '../src/index.js'
import { sharedClient, sharedRedisForFile } from './helpers.js'

const redis = sharedRedisForFile('overrides')
const opened: { store: { close(): unknown }; client: Redis }[] = []
afterAll(async () => {
  for (const { store, client } of opened) {
    await store.close()
    await client.quit()
  }
})

/** A server: a client, a RedisStore over it, and a middleware keyed by user with overrides. */
async function server(options: { synced?: boolean; prefix?: string } = {}) {
  const client = await sharedClient()
  const redisStore = new RedisStore({ client, prefix: redis.prefix, settingsInterval: '100ms' })
  const store = options.synced ? new SyncedStore({ store: redisStore }) : redisStore
  opened.push({ store, client })
  const handler = createRateLimitHandler({
    store,
    prefix: options.prefix ?? 'api',
    key: 'user',
    user: (req: { user: string }) => req.user,
    algorithm: fixedWindow({ limit: 1, window: '1h' }),
    overrides: {},
    headers: 'draft-6',
  })
  return { handler, store }
}

let seq = 0
/** The limit a fresh caller `id` gets (its `RateLimit-Limit`), from one request. */
async function limitOf(handler: RateLimitHandler, id: string): Promise<string | undefined> {
  const outcome = (await handler.handle({
    ip: '198.51.100.1',
    method: 'GET',
    route: '/',
    path: '/',
    headers: {},
    native: { user: `${id}${seq++}` },
  })) as Outcome
  return outcome.skipped ? 'skipped' : outcome.headers['ratelimit-limit']
}

describe('overrides shared through Redis', () => {
  it("a change on one server is applied by another's within the interval", async () => {
    const a = await server()
    const b = await server()
    expect(await limitOf(b.handler, 'vip-')).toBe('1') // b watches from its first request
    await a.handler.overrides.set('user', 'vip-*', fixedWindow({ limit: 50, window: '1h' }))
    expect(await limitOf(a.handler, 'vip-')).toBe('50') // the server that set it: at once
    await vi.waitFor(async () => expect(await limitOf(b.handler, 'vip-')).toBe('50'), {
      timeout: 5000,
      interval: 20,
    })
    await a.handler.overrides.set('user', 'vip-*', false)
    await vi.waitFor(async () => expect(await limitOf(b.handler, 'vip-')).toBe('skipped'), {
      timeout: 5000,
      interval: 20,
    })
    await b.handler.overrides.delete('user', 'vip-*')
    await vi.waitFor(async () => expect(await limitOf(a.handler, 'vip-')).toBe('1'), {
      timeout: 5000,
      interval: 20,
    })
    expect(await a.handler.overrides.list()).toEqual([])
  })

  it('two middlewares over one store see a change at once; another prefix has its own', async () => {
    const a = await server({ prefix: 'one' })
    const b = createRateLimitHandler({
      store: a.store as RedisStore,
      prefix: 'one',
      key: 'user',
      user: (req: { user: string }) => req.user,
      algorithm: fixedWindow({ limit: 1, window: '1h' }),
      overrides: {},
      headers: 'draft-6',
    })
    const other = await server({ prefix: 'two' })
    expect(await limitOf(b, 'gold-')).toBe('1')
    await a.handler.overrides.set('user', 'gold-*', fixedWindow({ limit: 9, window: '1h' }))
    expect(await limitOf(b, 'gold-')).toBe('9')
    expect(await limitOf(other.handler, 'gold-')).toBe('1')
    expect(await other.handler.overrides.list()).toEqual([])
  })

  it('through a SyncedStore: kept in its Redis, seen by a server on a RedisStore', async () => {
    const a = await server({ synced: true, prefix: 'synced' })
    const b = await server({ prefix: 'synced' })
    expect(await limitOf(b.handler, 'team-')).toBe('1')
    await a.handler.overrides.set('user', 'team-*', fixedWindow({ limit: 7, window: '1h' }))
    await vi.waitFor(async () => expect(await limitOf(b.handler, 'team-')).toBe('7'), {
      timeout: 5000,
      interval: 20,
    })
    const [entry] = await b.handler.overrides.list()
    expect(entry).toMatchObject({ policy: 'user', pattern: 'team-*', source: 'runtime' })
  })
})
