import { createHash } from 'node:crypto'
import {
  createLimiter,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'
import { type RedisServer, startRedis } from '@floodgate/test-harness'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisClient, RedisStore, replyCode } from '../src/index.js'
import { ALL_SCRIPTS } from '../src/scripts/index.js'
import { CLIENT_NAMES, openClient, type TestClient } from './helpers.js'

// `client` (ioredis) inspects the server; the stores use each client the store takes in turn.
let server: RedisServer
let client: Redis
const storeClients = new Map<string, TestClient>()

beforeAll(async () => {
  server = await startRedis()
  client = new Redis(server.url)
  for (const name of CLIENT_NAMES) {
    const opened = openClient(name, { port: server.port })
    await opened.ready
    storeClients.set(name, opened)
  }
})
afterAll(async () => {
  for (const opened of storeClients.values()) await opened.close()
  await client?.quit()
  await server?.stop()
})

const algorithms = [
  fixedWindow({ limit: 3, window: '1s' }),
  slidingWindowCounter({ limit: 3, window: '1s' }),
  slidingWindowLog({ limit: 3, window: '1s' }),
  tokenBucket({ capacity: 3, refillRate: 1, interval: '1s' }),
  leakyBucket({ capacity: 3, leakRate: 1, interval: '1s', mode: 'shape' }),
  gcra({ rate: 3, period: '1s' }),
]

describe('Lua scripts', () => {
  it('each SHA1 is the one SCRIPT LOAD answers', async () => {
    for (const script of ALL_SCRIPTS) {
      expect(script.sha).toBe(createHash('sha1').update(script.source).digest('hex'))
      expect(await client.script('LOAD', script.source), script.name).toBe(script.sha)
    }
  })
})

for (const name of CLIENT_NAMES)
  describe(`Lua scripts through ${name}`, () => {
    const of = (): RedisClient => storeClients.get(name)!.client

    it('NOSCRIPT loads the script and retries, once', async () => {
      await client.script('FLUSH')
      const commands = await commandCount()
      const store = new RedisStore({ client: of(), prefix: `${name}-noscript` })
      const decision = await store.consume(algorithms[0]!, 'k', 1)
      expect(decision).toMatchObject({ allowed: true, source: 'redis' })
      const after = await commandCount()
      expect(after.evalsha - commands.evalsha).toBe(1)
      expect(after.eval - commands.eval).toBe(1)
      // Now it is loaded: one EVALSHA per decision and nothing else.
      await store.consume(algorithms[0]!, 'k', 1)
      const last = await commandCount()
      expect(last.evalsha - after.evalsha).toBe(1)
      expect(last.eval - after.eval).toBe(0)
    })

    it('an error reply other than NOSCRIPT is not retried: the store rejects, the failMode decides, onError hears it', async () => {
      await client.rpush(`${name}-wrongtype:{k}:${algorithms[0]!.id}`, 'not a state')
      const errors: string[] = []
      const store = new RedisStore({
        client: of(),
        prefix: `${name}-wrongtype`,
        onError: (error) => errors.push(replyCode(error) ?? error.message),
      })
      const limiter = createLimiter({
        store,
        algorithm: algorithms[0]!,
        failMode: 'closed',
        storeTimeout: '5s',
      })
      const before = await commandCount()
      const decision = await limiter.consume('k')
      expect(decision).toMatchObject({ allowed: false, source: 'fail-closed' })
      expect(errors).toEqual(['WRONGTYPE'])
      const after = await commandCount()
      expect(after.evalsha - before.evalsha).toBe(1)
      expect(after.eval - before.eval).toBe(0)
      // The store itself rejects, with the reply as its cause; an error reply is not an outage: the next
      // decision goes to Redis again.
      await expect(store.consume(algorithms[0]!, 'k', 1)).rejects.toMatchObject({
        code: 'ERR_FLOODGATE_REDIS_FAILED',
        cause: expect.any(Error),
      })
      await client.del(`${name}-wrongtype:{k}:${algorithms[0]!.id}`)
      expect((await store.consume(algorithms[0]!, 'k', 1)).source).toBe('redis')
    })

    it('every key written has a TTL; a refund never creates a key; the server clock is used without `now`', async () => {
      const store = new RedisStore({ client: of(), prefix: `${name}-ttl`, expiryGraceMs: 500 })
      for (const algorithm of algorithms) {
        // On the server clock: start early in a second, so that these steps stay in one 1 s window (a refund
        // in the next window has nothing to give back).
        await earlyInSecond()
        const key = `ttl-${algorithm.kind}`
        const rkey = store.keyOf(algorithm, key)
        await store.refund(algorithm, key, 1)
        expect(await client.exists(rkey), `${algorithm.kind}: refund created a key`).toBe(0)
        const refused = await store.peek(algorithm, key, 100)
        expect(refused.allowed).toBe(false)
        expect(await client.exists(rkey)).toBe(0)
        await store.consume(algorithm, key, 2)
        const ttl = await client.pttl(rkey)
        expect(ttl, algorithm.kind).toBeGreaterThan(0)
        expect(ttl, algorithm.kind).toBeLessThanOrEqual(2 * algorithm.windowMs + 500 + 1)
        await store.refund(algorithm, key, 1)
        expect(await client.pttl(rkey), algorithm.kind).toBeGreaterThan(0)
        await store.refund(algorithm, key, 5)
        const left = await client.pttl(rkey)
        expect(left === -2 || left > 0, `${algorithm.kind}: pttl ${left} after refunds`).toBe(true)
        expect((await store.peek(algorithm, key, 1)).remaining, algorithm.kind).toBe(algorithm.limit)
        await store.reset(algorithm, key)
        expect(await client.exists(rkey)).toBe(0)
      }
    })

    it('a bucket and a GCRA keep their expiry in the state; a state stored without it is read and given one', async () => {
      const store = new RedisStore({ client: of(), prefix: `${name}-expiry`, expiryGraceMs: 500 })
      const now = Date.UTC(2026, 0, 1, 12)
      const doubles = (...values: number[]) => {
        const bytes = Buffer.alloc(8 * values.length)
        for (let i = 0; i < values.length; i++) bytes.writeDoubleLE(values[i]!, 8 * i)
        return bytes
      }
      const read = async (rkey: string) => {
        const raw = await client.getBuffer(rkey)
        return raw ? Array.from({ length: raw.length / 8 }, (_, i) => raw.readDoubleLE(8 * i)) : []
      }
      // Token bucket of 3, 1 per second: 2 used at `now`, stored as `level lastUpdate` (units x ms).
      const bucket = tokenBucket({ capacity: 3, refillRate: 1, interval: '1s' })
      const bucketKey = store.keyOf(bucket, 'k')
      await client.set(bucketKey, doubles(2000, now), 'PX', 10_000)
      expect(await store.consume(bucket, 'k', 1, now)).toMatchObject({ allowed: true, remaining: 0 })
      // Fresh in 3 s; kept the grace past that, and 3 s more (the longer of the grace and the 3 s) for the writes
      // that follow.
      expect(await read(bucketKey)).toEqual([3000, now, now + 6500])
      expect(await client.pttl(bucketKey)).toBeGreaterThan(6000)
      expect(await client.pttl(bucketKey)).toBeLessThanOrEqual(6500)
      // A refund leaves it fresh sooner: the expiry already covers it and is kept.
      await store.refund(bucket, 'k', 1, now)
      expect(await read(bucketKey)).toEqual([2000, now, now + 6500])
      // Emptied by a consume 2 s later, fresh 3 s after that (+5.5 s with the grace): covered, kept.
      expect(await store.consume(bucket, 'k', 3, now + 2000)).toMatchObject({ allowed: true, remaining: 0 })
      expect(await read(bucketKey)).toEqual([3000, now + 2000, now + 6500])
      // Emptied again at +6 s, fresh 3 s later (+9.5 s with the grace): past the kept expiry, a new one, 6.5 s on.
      expect(await store.consume(bucket, 'k', 3, now + 6000)).toMatchObject({ allowed: true, remaining: 0 })
      expect(await read(bucketKey)).toEqual([3000, now + 6000, now + 12_500])
      // GCRA of 3 per second (one per 333.3 ms): a TAT stored alone is read.
      const meter = gcra({ rate: 3, period: '1s' })
      const meterKey = store.keyOf(meter, 'k')
      await client.set(meterKey, doubles(now), 'PX', 10_000)
      expect((await store.consume(meter, 'k', 1, now)).allowed).toBe(true)
      const [tat, expires] = await read(meterKey)
      expect(tat).toBeCloseTo(now + 1000 / 3, 6)
      expect(expires).toBe(now + 334 + 1000)
    })

    it('a window counted again in the same window is rewritten in place and keeps its expiry', async () => {
      const store = new RedisStore({ client: of(), prefix: `${name}-inplace`, expiryGraceMs: 500 })
      const start = Date.UTC(2026, 0, 1, 12)
      for (const algorithm of [
        fixedWindow({ limit: 5, window: '1m' }),
        slidingWindowCounter({ limit: 5, window: '1m' }),
      ]) {
        const rkey = store.keyOf(algorithm, 'k')
        await store.consume(algorithm, 'k', 1, start)
        const first = await client.pttl(rkey)
        expect((await store.consume(algorithm, 'k', 2, start + 30_000)).remaining, algorithm.kind).toBe(2)
        // A TTL set again at +30 s would be 30 s shorter; the one set at the first count is kept.
        expect(first - (await client.pttl(rkey)), algorithm.kind).toBeLessThan(1000)
        expect((await client.getBuffer(rkey))?.readDoubleLE(8), algorithm.kind).toBe(3)
      }
    })

    it('with no clock, Redis TIME decides windows', async () => {
      const store = new RedisStore({ client: of(), prefix: `${name}-servertime` })
      const algorithm = fixedWindow({ limit: 2, window: '1h' })
      const decisions = await Promise.all([1, 2, 3].map(() => store.consume(algorithm, 'k', 1)))
      expect(decisions.map((d) => d.allowed).sort()).toEqual([false, true, true])
      const refused = decisions.find((d) => !d.allowed)!
      const [sec, usec] = (await client.time()) as [number | string, number | string]
      const serverNow = Number(sec) * 1000 + Number(usec) / 1000
      const untilNextHour = Math.ceil(serverNow / 3_600_000) * 3_600_000 - serverNow
      expect(Math.abs(refused.retryAfterMs - untilNextHour)).toBeLessThan(1000)
    })
  })

/** Wait, when the server clock is late in its second, for the next one to begin. */
async function earlyInSecond(): Promise<void> {
  const [, usec] = (await client.time()) as [number | string, number | string]
  const ms = Number(usec) / 1000
  if (ms > 500) await new Promise((resolve) => setTimeout(resolve, 1000 - ms + 10))
}

async function commandCount(): Promise<{ eval: number; evalsha: number }> {
  const info = await client.info('commandstats')
  const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0)
  return { eval: calls('eval'), evalsha: calls('evalsha') }
}
