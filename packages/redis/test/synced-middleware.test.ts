// A SyncedStore runs the counting windows only: the middleware refuses another algorithm when it is created
// (in any of its policies, tiers or plans), never on a request.
import { fixedWindow, gcra, RateLimitConfigError, tokenBucket } from '@floodgate/core'
import { createRateLimitHandler } from '@floodgate/core/internal'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { RedisStore, SyncedStore } from '../src/index.js'

const client = new Redis({ lazyConnect: true })
const store = new SyncedStore({ store: new RedisStore({ client }) })
afterAll(async () => {
  await store.close()
  client.disconnect()
})

describe('SyncedStore under rateLimit()', () => {
  it('refuses a bucket or GCRA at creation, in limits, tiers and plans', () => {
    const refused = [
      { store, algorithm: tokenBucket({ capacity: 5, refillRate: 1 }) },
      {
        store,
        limits: [
          { name: 'ok', algorithm: fixedWindow({ limit: 5, window: '1m' }) },
          { name: 'gcra', algorithm: gcra({ rate: 1 }) },
        ],
      },
      { store, tiers: [{ name: 'account', key: 'global' as const, algorithm: gcra({ rate: 100 }) }] },
      { store, plans: { free: { rate: 10 } }, apiKey: () => 'k', planOf: () => 'free' },
    ]
    for (const options of refused) {
      expect(() => createRateLimitHandler(options)).toThrow(RateLimitConfigError)
    }
    expect(() => createRateLimitHandler({ store, limit: 5, window: '1m' })).not.toThrow()
  })

  it('refuses settled costs at creation, naming the store: its local decisions cannot charge past a shared limit', () => {
    expect(() => createRateLimitHandler({ store, limit: 5, window: '1m', settle: () => 1 })).toThrow(
      RateLimitConfigError,
    )
    expect(() => createRateLimitHandler({ store, limit: 5, window: '1m', settle: () => 1 })).toThrow(
      /SyncedStore has none/,
    )
  })
})
