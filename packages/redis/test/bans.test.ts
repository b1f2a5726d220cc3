import { fixedWindow, RateLimitConfigError } from '@floodgate/core'
import { createRateLimitHandler } from '@floodgate/core/internal'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisStore, SyncedStore } from '../src/index.js'
import { manualTimers } from './fixtures/synced-timers.js'
import { sharedClient, testPrefix } from './helpers.js'

// The RedisStore's bans beyond the conformance suite: the block cache answers a banned key locally until its
// ban ends, and an unban through the store clears it; a SyncedStore refuses `ban` when the middleware is made.
let client: Redis
const prefix = testPrefix('bans')

beforeAll(async () => {
  client = await sharedClient()
})
afterAll(async () => {
  const keys = await client.keys(`${prefix}*`)
  if (keys.length > 0) await client.del(...keys)
  await client.quit()
})

describe('RedisStore bans', () => {
  it('with blockCache, a banned key is answered locally (no round trip) until the ban ends', async () => {
    const store = new RedisStore({ client, prefix: `${prefix}:cache`, blockCache: true })
    const item = {
      algorithm: fixedWindow({ limit: 1, window: '1h' }),
      key: 'ban{ip:192.0.2.1}',
      cost: 1,
      ban: { after: 1, withinMs: 60_000, forMs: 10_000 },
    }
    const t = Date.UTC(2030, 5, 1)
    expect((await store.consumeAll([item], t))[0]).toMatchObject({ allowed: true, source: 'redis' })
    expect((await store.consumeAll([item], t + 1))[0]).toMatchObject({ bannedNow: true, source: 'redis' })
    const local = (await store.consumeAll([item], t + 1_001))[0]!
    expect(local).toMatchObject({ allowed: false, source: 'block-cache' })
    expect(local.bannedMs).toBe(9_000)
    // Its ban ends: Redis is asked again (and the quota, still spent, refuses and bans again at once).
    expect((await store.consumeAll([item], t + 10_001))[0]).toMatchObject({
      bannedNow: true,
      source: 'redis',
    })
    await store.unban(item.key)
    expect((await store.consumeAll([item], t + 10_002))[0]).toMatchObject({
      bannedNow: true,
      source: 'redis',
    })
    store.close()
  })

  it('a SyncedStore refuses a policy with `ban` when the middleware is created, naming the store', () => {
    const synced = new SyncedStore({
      store: new RedisStore({ client, prefix: `${prefix}:synced` }),
      timers: manualTimers(),
      processes: 1,
    })
    const create = () =>
      createRateLimitHandler({
        store: synced,
        limit: 5,
        window: '1m',
        ban: { after: 3, within: '1m', for: '1h' },
      })
    expect(create).toThrow(RateLimitConfigError)
    expect(create).toThrow(/rateLimit\.store.*keeps bans/)
    void synced.close()
  })
})
