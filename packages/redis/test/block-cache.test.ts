import { fixedWindow, gcra, slidingWindowCounter, tokenBucket } from '@floodgate/core'
import { seededRandom } from '@floodgate/testing'
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BlockCache } from '../src/block-cache.js'
import { type RedisClient, RedisStore } from '../src/index.js'
import { CLIENT_NAMES, type ClientName, sharedTestClient, type TestClient, testPrefix } from './helpers.js'

const T0 = Date.UTC(2026, 0, 1, 12)

/**
 * `client`, counting the scripts it sends (the shared Redis's own stats see other processes too): ioredis
 * through a wrapper with its binary-reply methods, node-redis through a view of the client (as node-redis's
 * own `withTypeMapping` makes one) whose `sendCommand` counts.
 */
function counting(name: ClientName, client: RedisClient) {
  const counter = { calls: 0 }
  if (name === 'node-redis') {
    const view = Object.create(client) as { sendCommand: (...args: unknown[]) => Promise<unknown> }
    const send = view.sendCommand
    view.sendCommand = (...args: unknown[]) => {
      counter.calls++
      return send.apply(client, args)
    }
    return { client: view as unknown as RedisClient, counter }
  }
  const ioredis = client as Redis
  const wrapped = {
    evalsha: ioredis.evalsha.bind(ioredis),
    eval: ioredis.eval.bind(ioredis),
    del: ioredis.del.bind(ioredis),
    evalshaBuffer: (...args: unknown[]) => {
      counter.calls++
      return (ioredis as any).evalshaBuffer(...args)
    },
    evalBuffer: (...args: unknown[]) => {
      counter.calls++
      return (ioredis as any).evalBuffer(...args)
    },
  }
  return { client: wrapped, counter }
}

for (const name of CLIENT_NAMES)
  describe(`block cache (${name})`, () => {
    let opened: TestClient
    let client: RedisClient
    beforeAll(async () => {
      opened = await sharedTestClient(name)
      client = opened.client
    })
    afterAll(async () => {
      await opened?.close()
    })

    it('is off by default', async () => {
      const store = new RedisStore({ client, prefix: testPrefix(`${name}-nocache`) })
      const algorithm = fixedWindow({ limit: 1, window: '1m' })
      await store.consume(algorithm, 'k', 1, T0)
      expect((await store.consume(algorithm, 'k', 1, T0)).source).toBe('redis')
      expect((await store.consume(algorithm, 'k', 1, T0)).source).toBe('redis')
    })

    it('refuses a refused key locally, with no round trip, until retryAfterMs has (nearly) passed', async () => {
      const { client: counted, counter } = counting(name, client)
      const store = new RedisStore({ client: counted, prefix: testPrefix(`${name}-cache`), blockCache: true })
      const algorithm = fixedWindow({ limit: 2, window: '1m' })
      await store.consume(algorithm, 'k', 2, T0)
      const refused = await store.consume(algorithm, 'k', 1, T0)
      expect(refused).toMatchObject({ allowed: false, source: 'redis', retryAfterMs: 60_000 })
      const before = counter.calls
      expect(before).toBe(2) // the two decisions above, through the counted client
      const local = await store.consume(algorithm, 'k', 1, T0 + 10_000)
      expect(local).toMatchObject({
        allowed: false,
        source: 'block-cache',
        retryAfterMs: 50_000,
        remaining: 0,
      })
      expect(counter.calls).toBe(before)
      // The last ms goes to Redis (it rounds up), and so does everything after.
      expect((await store.consume(algorithm, 'k', 1, T0 + 59_999)).source).toBe('redis')
      expect((await store.consume(algorithm, 'k', 1, T0 + 60_000)).allowed).toBe(true)
    })

    it('keeps no key over 256 characters: Redis decides it every time, and decides it right', async () => {
      const store = new RedisStore({ client, prefix: testPrefix(`${name}-long`), blockCache: true })
      const algorithm = fixedWindow({ limit: 1, window: '1m' })
      const long = `{${'k'.repeat(300)}}`
      const short = `{${'k'.repeat(200)}}`
      for (const key of [long, short]) {
        expect(await store.consume(algorithm, key, 1, T0)).toMatchObject({ allowed: true })
        expect(await store.consume(algorithm, key, 1, T0)).toMatchObject({ allowed: false, source: 'redis' })
      }
      expect(await store.consume(algorithm, long, 1, T0)).toMatchObject({ allowed: false, source: 'redis' })
      expect(await store.consume(algorithm, short, 1, T0)).toMatchObject({
        allowed: false,
        source: 'block-cache',
      })
    })

    it('never refuses what Redis would allow: random differential against the uncached store', async () => {
      const algorithms = [
        fixedWindow({ limit: 3, window: '1s' }),
        slidingWindowCounter({ limit: 3, window: '1s' }),
        tokenBucket({ capacity: 3, refillRate: 2, interval: '1s' }),
        gcra({ rate: 3, period: '1s', burst: 2 }),
      ]
      for (const algorithm of algorithms) {
        // Virtual time, real expiry: a grace of a minute keeps Redis's real-time TTLs from expiring a key the
        // virtual clock still counts, however slowly a loaded machine runs the loop.
        const expiryGraceMs = 60_000
        const cached = new RedisStore({
          client,
          prefix: testPrefix(`${name}-diff-cached-${algorithm.kind}`),
          blockCache: true,
          expiryGraceMs,
        })
        const plain = new RedisStore({
          client,
          prefix: testPrefix(`${name}-diff-plain-${algorithm.kind}`),
          expiryGraceMs,
        })
        const random = seededRandom(42)
        let now = T0 + 17
        let local = 0
        for (let i = 0; i < (name === 'ioredis' ? 300 : 150); i++) {
          now += Math.floor(random() * 150)
          const cost = random() < 0.8 ? 1 : 2
          const a = await cached.consume(algorithm, 'k', cost, now)
          const b = await plain.consume(algorithm, 'k', cost, now)
          if (a.source === 'block-cache') {
            local++
            // A local refusal only where Redis refuses too; the uncached store then keeps the same state.
            expect(b.allowed, `${algorithm.kind} op ${i}`).toBe(false)
          } else {
            expect(a.allowed, `${algorithm.kind} op ${i}`).toBe(b.allowed)
          }
        }
        expect(local, algorithm.kind).toBeGreaterThan(0)
      }
    })

    it('a cheaper request, a refund or a reset through this store go to Redis', async () => {
      const store = new RedisStore({ client, prefix: testPrefix(`${name}-cheaper`), blockCache: true })
      const algorithm = tokenBucket({ capacity: 4, refillRate: 1, interval: '1s' })
      await store.consume(algorithm, 'k', 3, T0)
      expect((await store.consume(algorithm, 'k', 2, T0)).source).toBe('redis')
      expect((await store.consume(algorithm, 'k', 2, T0)).source).toBe('block-cache')
      expect((await store.consume(algorithm, 'k', 1, T0)).allowed).toBe(true)
      expect((await store.consume(algorithm, 'k', 1, T0)).source).toBe('redis')
      await store.refund(algorithm, 'k', 1, T0)
      expect((await store.consume(algorithm, 'k', 1, T0)).allowed).toBe(true)
      await store.consume(algorithm, 'k', 1, T0)
      await store.reset(algorithm, 'k')
      expect((await store.consume(algorithm, 'k', 1, T0)).allowed).toBe(true)
    })
  })

describe('BlockCache', () => {
  it('is bounded: the oldest entry goes first', () => {
    const cache = new BlockCache(2)
    const algorithm = fixedWindow({ limit: 1, window: '1m' })
    const refused = {
      allowed: false,
      limit: 1,
      remaining: 0,
      resetMs: 1000,
      retryAfterMs: 1000,
      delayMs: 0,
      policy: '',
      source: 'redis' as const,
    }
    for (const key of ['a', 'b', 'c']) cache.add(key, algorithm, 1, refused, 0, true)
    expect(cache.size).toBe(2)
    expect(cache.get('a', algorithm, 1, 10, true)).toBeUndefined()
    expect(cache.get('c', algorithm, 1, 10, true)?.retryAfterMs).toBe(990)
    expect(cache.get('c', algorithm, 1, 999, true)).toBeUndefined() // refuses 1 ms less than Redis said
  })
})
