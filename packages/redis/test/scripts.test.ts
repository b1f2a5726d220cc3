import { createHash } from 'node:crypto'
import {
  type Algorithm,
  createLimiter,
  type Decision,
  fixedWindow,
  gcra,
  leakyBucket,
  MemoryStore,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'
import { type RedisServer, startRedis } from '@floodgate/test-harness'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RedisClient, RedisStore, replyCode } from '../src/index.js'
import { ALL_SCRIPTS, CONSUME_ALL, SCRIPTS } from '../src/scripts/index.js'
import { consumeAllArgs, scriptParams, singleArgs } from '../src/wire.js'
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

  it('a bucket admission with no wait replies 16 bytes, alone and batched; one that waits, all 40', async () => {
    const now = Date.UTC(2026, 0, 1, 12)
    const grace = 500
    // The raw reply of a consume at `at`, by the one-key script, then its size by the several-keys script.
    const replies = async (algorithm: Algorithm, key: string, at: number) => {
      const params = scriptParams(algorithm, grace)
      const rkey = `reply-size:${key}`
      const alone = (await client.callBuffer('EVALSHA', [
        SCRIPTS[algorithm.kind].sha,
        1,
        ...singleArgs(`${rkey}:alone`, 'consume', true, at, 1, String(grace), params),
      ])) as Buffer
      const items = [{ algorithm, key, cost: 1 }]
      const args = consumeAllArgs(
        true,
        grace,
        [{ items, keys: [`${rkey}:batched`], banKeys: undefined, now: at }],
        1,
        [params],
      )
      const batched = (await client.callBuffer('EVALSHA', [CONSUME_ALL.sha, 1, ...args])) as Buffer
      // The several-keys reply: one size byte per item, then the decisions.
      expect(batched.subarray(1)).toEqual(alone)
      const delay = alone.length === 40 ? alone.readDoubleLE(32) : 0
      return { bytes: alone.length, batchedBytes: batched[0], first: alone.readDoubleLE(0), delay }
    }
    for (const script of [SCRIPTS['token-bucket'], CONSUME_ALL]) await client.script('LOAD', script.source)
    const token = tokenBucket({ capacity: 3, refillRate: 1, interval: '1s' })
    // Empty, then with units in it: a token bucket never delays.
    expect(await replies(token, 'token', now)).toMatchObject({ bytes: 16, batchedBytes: 16, first: 2 })
    expect(await replies(token, 'token', now + 10)).toMatchObject({ bytes: 16, batchedBytes: 16, first: 1 })
    const police = leakyBucket({ capacity: 3, leakRate: 1, interval: '1s' })
    expect(await replies(police, 'police', now)).toMatchObject({ bytes: 16, first: 2 })
    expect(await replies(police, 'police', now + 10)).toMatchObject({ bytes: 16, first: 1 })
    // Shaping: the first request into an empty bucket goes at once; the next waits for the unit ahead of it.
    const shape = leakyBucket({ capacity: 3, leakRate: 1, interval: '1s', mode: 'shape' })
    expect(await replies(shape, 'shape', now)).toMatchObject({ bytes: 16, batchedBytes: 16, first: 2 })
    // allowed, and 990 ms to wait (the unit ahead, less the 10 ms it has drained)
    expect(await replies(shape, 'shape', now + 10)).toMatchObject({
      bytes: 40,
      batchedBytes: 40,
      first: 1,
      delay: 990,
    })
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
      expect(await client.pttl(bucketKey)).toBeGreaterThan(6000)
      expect(await client.pttl(bucketKey)).toBeLessThanOrEqual(6500)
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

describe('the sliding window log in Redis: one string, entries then a header', () => {
  const T = Date.UTC(2026, 0, 1, 12)
  const store = () =>
    new RedisStore({ client: storeClients.get('ioredis')!.client, prefix: 'swl', expiryGraceMs: 500 })
  /** The log's state as the script keeps it (see `scripts/sliding-window-log.ts`). */
  const readLog = async (rkey: string) => {
    const raw = await client.getBuffer(rkey)
    if (!raw) return undefined
    // The header: `at oldest expires`, the string's last 24 bytes; `at` is `tail * 2^26 + first`, negated when
    // a refund left unused slots (the last of them then holds their end, `size`).
    const h = raw.length - 24
    const [at, oldest, expires] = [0, 8, 16].map((i) => raw.readDoubleLE(h + i)) as [number, number, number]
    const first = Math.abs(at) % 2 ** 26
    const tail = Math.floor(Math.abs(at) / 2 ** 26)
    const size = at < 0 ? raw.readDoubleLE(h - 8) : tail
    expect(h).toBe(8 * size)
    const entries = Array.from({ length: tail - first }, (_, i) => raw.readDoubleLE(8 * (first + i)))
    const newest = entries.at(-1)
    return { bytes: raw.length, first, tail, size, oldest, newest, expires, entries }
  }
  const same = (a: Decision, b: Decision) => ({
    allowed: a.allowed === b.allowed,
    remaining: a.remaining === b.remaining,
    resetMs: a.resetMs === b.resetMs,
    retryAfterMs: a.retryAfterMs === b.retryAfterMs,
  })
  const agrees = { allowed: true, remaining: true, resetMs: true, retryAfterMs: true }

  it('is a string at the id; an admission keeps the TTL until it must move', async () => {
    const s = store()
    const log = slidingWindowLog({ limit: 5, window: '10s' })
    const rkey = s.keyOf(log, 'ttl')
    expect(rkey).toBe(`swl:{ttl}:${log.id}`)
    expect(await s.consume(log, 'ttl', 1, T)).toMatchObject({ allowed: true, remaining: 4, resetMs: 10_000 })
    expect(await client.type(rkey)).toBe('string')
    // Kept the grace past the newest entry's expiry, and a window more for the admissions that follow.
    expect(await readLog(rkey)).toEqual({
      bytes: 8 + 24,
      first: 0,
      tail: 1,
      size: 1,
      oldest: T + 10_000,
      newest: T + 10_000,
      expires: T + 20_500,
      entries: [T + 10_000],
    })
    const set = await client.pttl(rkey)
    expect(set).toBeGreaterThan(20_000)
    expect(set).toBeLessThanOrEqual(20_500)
    // 9 s later (on the limiter's clock): the key still outlives the new entry by the grace, its TTL is kept.
    const beforeKept = await ttlWrites()
    expect(await s.consume(log, 'ttl', 2, T + 9_000)).toMatchObject({ allowed: true, remaining: 2 })
    expect(await ttlWrites()).toEqual(beforeKept)
    expect(await readLog(rkey)).toMatchObject({
      bytes: 24 + 24,
      tail: 3,
      size: 3,
      newest: T + 19_000,
      expires: T + 20_500,
      entries: [T + 10_000, T + 19_000, T + 19_000],
    })
    // 10.001 s in: the first entry expired, and the key would no longer outlive the new one by the grace.
    expect(await s.consume(log, 'ttl', 1, T + 10_001)).toMatchObject({ allowed: true, remaining: 2 })
    expect(await readLog(rkey)).toMatchObject({
      first: 1,
      tail: 4,
      oldest: T + 19_000,
      newest: T + 20_001,
      expires: T + 10_001 + 20_500,
      entries: [T + 19_000, T + 19_000, T + 20_001],
    })
    // Set again, 20.5 s from now: one PEXPIRE, the entries rewritten in place.
    expect(await ttlWrites()).toEqual({ set: beforeKept.set, pexpire: beforeKept.pexpire + 1 })
    const moved = await client.pttl(rkey)
    expect(moved).toBeGreaterThan(20_000)
    expect(moved).toBeLessThanOrEqual(20_500)
    // A peek and a refusal write nothing.
    const before = await client.getBuffer(rkey)
    expect(await s.peek(log, 'ttl', 1, T + 10_002)).toMatchObject({ allowed: true, remaining: 2 })
    expect(await s.consume(log, 'ttl', 3, T + 10_002)).toMatchObject({ allowed: false, retryAfterMs: 8_998 })
    expect(await client.getBuffer(rkey)).toEqual(before)
  })

  it('a key outlives its entries by more than the grace: an admission then writes it afresh', async () => {
    const s = store()
    const log = slidingWindowLog({ limit: 3, window: '1s' })
    const rkey = s.keyOf(log, 'outlives')
    await s.consume(log, 'outlives', 3, T)
    expect(await readLog(rkey)).toMatchObject({ tail: 3, expires: T + 2_500 })
    // 1.9 s later every entry has expired (and the grace is past), the key is still there: it decides as new.
    expect(await s.peek(log, 'outlives', 3, T + 1_900)).toMatchObject({
      allowed: true,
      remaining: 3,
      resetMs: 0,
    })
    expect(await s.consume(log, 'outlives', 1, T + 1_900)).toMatchObject({ allowed: true, remaining: 2 })
    expect(await readLog(rkey)).toEqual({
      bytes: 8 + 24,
      first: 0,
      tail: 1,
      size: 1,
      oldest: T + 2_900,
      newest: T + 2_900,
      expires: T + 1_900 + 2_500,
      entries: [T + 2_900],
    })
  })

  it('a log admitted into over many windows stays small: dropped slots are let go once there are enough', async () => {
    const s = store()
    const memory = new MemoryStore()
    const log = slidingWindowLog({ limit: 3, window: '1s' })
    const rkey = s.keyOf(log, 'long')
    let rewritten = 0
    let last = 0
    for (let i = 0; i < 200; i++) {
      const now = T + 350 * i
      expect(
        same(await s.consume(log, 'long', 1, now), memory.consume(log, 'long', 1, now)),
        `#${i}`,
      ).toEqual(agrees)
      const state = (await readLog(rkey))!
      if (state.first < last) rewritten++
      last = state.first
      expect(state.bytes).toBeLessThanOrEqual(8 * (32 + 3 + 1) + 24)
      expect(state.entries).toEqual(state.entries.filter((e) => e > now - 1000).sort((a, b) => a - b))
      expect(state.entries.length).toBeLessThanOrEqual(3)
    }
    // 2 live entries and one more dropped per admission: written afresh every 30 admissions or so.
    expect(rewritten).toBeGreaterThanOrEqual(5)
  })

  it('several entries expire at once: the first 16 slots in one read, the rest by halving', async () => {
    const s = store()
    const memory = new MemoryStore()
    const log = slidingWindowLog({ limit: 100, window: '1s' })
    const rkey = s.keyOf(log, 'many')
    for (let i = 0; i < 60; i++) {
      await s.consume(log, 'many', 1, T + i)
      memory.consume(log, 'many', 1, T + i)
    }
    for (const [now, cost] of [
      [T + 1_003, 100], // 4 expired (in the first read), refused: retry when the 60th oldest... of the ring
      [T + 1_010, 1], // 11 expired: within the first 16 slots
      [T + 1_040, 2], // 30 more: past them, halving
      [T + 1_059, 1], // all but the newest
      [T + 1_500, 3], // every one: written afresh
    ] as const) {
      expect(same(await s.peek(log, 'many', 100, now), memory.peek(log, 'many', 100, now))).toEqual(agrees)
      expect(same(await s.consume(log, 'many', cost, now), memory.consume(log, 'many', cost, now))).toEqual(
        agrees,
      )
    }
    const state = (await readLog(rkey))!
    expect(state.entries).toEqual([
      T + 2_010,
      T + 2_040,
      T + 2_040,
      T + 2_059,
      T + 2_500,
      T + 2_500,
      T + 2_500,
    ])
    // Written afresh at +1,040 ms (45 dropped, 17 live), then 19 more dropped at +1,059 ms.
    expect(state.first).toBe(19)
  })

  it('refunds and charges after the log has moved on: unused slots are filled, the oldest past the limit dropped', async () => {
    const s = store()
    const memory = new MemoryStore()
    const log = slidingWindowLog({ limit: 4, window: '1s' })
    const rkey = s.keyOf(log, 'moved')
    const both = async (op: 'consume' | 'peek' | 'refund' | 'charge', cost: number, now: number) => {
      if (op === 'consume' || op === 'peek')
        expect(
          same(await s[op](log, 'moved', cost, now), memory[op](log, 'moved', cost, now)),
          `${op} ${cost} @${now - T}`,
        ).toEqual(agrees)
      else {
        await s[op](log, 'moved', cost, now)
        memory[op](log, 'moved', cost, now)
      }
    }
    for (let i = 0; i < 10; i++) await both('consume', 1, T + 300 * i)
    const moved = (await readLog(rkey))!
    expect(moved.first).toBeGreaterThan(0)
    await both('refund', 2, T + 2_800)
    expect(await readLog(rkey)).toMatchObject({ tail: moved.tail - 2, size: moved.size, newest: T + 3_100 })
    expect(await client.strlen(rkey)).toBe(moved.bytes)
    await both('peek', 1, T + 2_800)
    await both('consume', 1, T + 2_800) // into the slots the refund left, the header where it was
    expect(await readLog(rkey)).toMatchObject({ tail: moved.tail - 1, size: moved.size, newest: T + 3_800 })
    await both('consume', 3, T + 2_900) // refused
    await both('consume', 2, T + 3_000)
    await both('charge', 3, T + 3_100) // over the limit: the oldest dropped, the log kept to 4
    expect((await readLog(rkey))!.entries).toEqual([T + 4_000, T + 4_100, T + 4_100, T + 4_100])
    await both('consume', 1, T + 3_200)
    await both('peek', 4, T + 3_200)
    await both('charge', 9, T + 3_300)
    await both('refund', 1.5, T + 3_300)
    await both('consume', 2, T + 4_301)
    await both('refund', 10, T + 4_400) // everything: the key is deleted, as an emptied list was
    expect(await client.exists(rkey)).toBe(0)
    await both('consume', 1, T + 4_500)
  })

  it('a log of hundreds of entries: every slot written where it belongs, past slot 256 too', async () => {
    const s = store()
    const memory = new MemoryStore()
    const log = slidingWindowLog({ limit: 300, window: '1s' })
    const rkey = s.keyOf(log, 'long-log')
    for (let i = 0; i < 290; i++)
      expect(
        same(await s.consume(log, 'long-log', 1, T + i), memory.consume(log, 'long-log', 1, T + i)),
      ).toEqual(agrees)
    const state = (await readLog(rkey))!
    expect(state).toMatchObject({ first: 0, tail: 290, size: 290, bytes: 8 * 290 + 24 })
    expect(state.entries).toEqual(Array.from({ length: 290 }, (_, i) => T + 1_000 + i))
    expect(
      same(await s.peek(log, 'long-log', 11, T + 300), memory.peek(log, 'long-log', 11, T + 300)),
    ).toEqual(agrees)
  })

  it('a large refund leaves many unused slots: admissions fill them, the header staying at the end', async () => {
    const s = store()
    const memory = new MemoryStore()
    const log = slidingWindowLog({ limit: 40, window: '1s' })
    const rkey = s.keyOf(log, 'gap')
    const both = async (op: 'consume' | 'refund', cost: number, now: number) => {
      if (op === 'consume')
        expect(same(await s.consume(log, 'gap', cost, now), memory.consume(log, 'gap', cost, now))).toEqual(
          agrees,
        )
      else {
        await s.refund(log, 'gap', cost, now)
        memory.refund(log, 'gap', cost, now)
      }
      expect(same(await s.peek(log, 'gap', 1, now), memory.peek(log, 'gap', 1, now))).toEqual(agrees)
    }
    for (let i = 0; i < 30; i++) await both('consume', 1, T + i)
    const full = (await readLog(rkey))!
    await both('refund', 25, T + 30) // 25 unused slots before the header
    expect(await readLog(rkey)).toMatchObject({ bytes: full.bytes, tail: 5, size: 30 })
    await both('consume', 1, T + 31) // far from the header: the entry and the header written apart
    expect(await readLog(rkey)).toMatchObject({ bytes: full.bytes, tail: 6, size: 30, newest: T + 1_031 })
    await both('consume', 10, T + 32) // 14 unused left: written over with the entries, one write
    expect(await readLog(rkey)).toMatchObject({ bytes: full.bytes, tail: 16, size: 30, newest: T + 1_032 })
    await both('consume', 20, T + 33) // past the header: the string grows again
    expect(await readLog(rkey)).toMatchObject({ tail: 36, size: 36, newest: T + 1_033 })
    expect((await readLog(rkey))!.entries).toHaveLength(36)
    await both('consume', 5, T + 34)
    await both('consume', 1, T + 1_001) // 2 expired: room for one more
  })

  it('agrees with the MemoryStore on long random sequences, alone and batched', async () => {
    let seed = 7
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
      return seed / 2_147_483_648
    }
    const s = store()
    for (const log of [
      slidingWindowLog({ limit: 7, window: '1s' }),
      slidingWindowLog({ limit: 40, window: '1s' }),
    ]) {
      const memory = new MemoryStore()
      const keys = ['r0', 'r1', 'r2'].map((k) => `${k}-${log.limit}`)
      const costs = [1, 1, 1, 1, 2, 3, 0.4, 2.5, log.limit, log.limit + 1]
      let now = T
      for (let i = 0; i < 400; i++) {
        now += Math.floor(random() ** 3 * 700)
        const ops = keys.map((key) => {
          const r = random()
          const op = r < 0.6 ? 'consume' : r < 0.75 ? 'peek' : r < 0.9 ? 'refund' : 'charge'
          return { key, op, cost: costs[Math.floor(random() * costs.length)]! } as const
        })
        // The three keys in one turn (one call of the several-keys script), or one by one.
        const alone = random() < 0.5
        const run = ({ key, op, cost }: (typeof ops)[number]) => s[op](log as Algorithm, key, cost, now)
        const got = alone ? [] : await Promise.all(ops.map(run))
        for (const [j, item] of ops.entries()) {
          const redis = alone ? await run(item) : got[j]
          const mine = memory[item.op](log, item.key, item.cost, now)
          if (item.op === 'consume' || item.op === 'peek')
            expect(
              same(redis as Decision, mine as Decision),
              `${log.id} #${i} ${item.op} ${item.cost}`,
            ).toEqual(agrees)
        }
      }
    }
  })
})

/** Wait, when the server clock is late in its second, for the next one to begin. */
async function earlyInSecond(): Promise<void> {
  const [, usec] = (await client.time()) as [number | string, number | string]
  const ms = Number(usec) / 1000
  if (ms > 500) await new Promise((resolve) => setTimeout(resolve, 1000 - ms + 10))
}

/** How many times the server has run each command of `names` (lower case), the scripts' calls included. */
async function commandCalls<K extends string>(...names: K[]): Promise<Record<K, number>> {
  const info = await client.info('commandstats')
  const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0)
  return Object.fromEntries(names.map((name) => [name, calls(name)])) as Record<K, number>
}

const commandCount = () => commandCalls('eval', 'evalsha')
/** The writes that set a key's TTL. */
const ttlWrites = () => commandCalls('set', 'pexpire')
