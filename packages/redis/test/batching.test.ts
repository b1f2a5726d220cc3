import {
  type Algorithm,
  type ConsumeItem,
  createLimiter,
  type Decision,
  fixedWindow,
  gcra,
  MemoryStore,
  slidingWindowCounter,
  tokenBucket,
} from '@floodgate/core'
import { bounded, type RedisServer, recordingSink, startRedis } from '@floodgate/test-harness'
import { afterEach, describe, expect, it } from 'vitest'
import { type RedisDecision, RedisStore, RedisStoreError, type RedisStoreOptions } from '../src/index.js'
import {
  CLIENT_NAMES,
  type ClientName,
  openClient,
  sharedRedisForFile,
  sharedTestClient,
  type TestClient,
} from './helpers.js'

// Same-tick batching on the shared standalone Redis, with each client: many decisions asked for in one tick
// go as few script calls (counted by the store's own call metrics), and each is decided on its own: no more
// admitted than each key's limit, one request's policies all or none, one request's refusal changing nothing
// of another's. A batch call that fails (a frozen redis-server this file starts) rejects each of its callers
// with the store error, and a limiter over the store applies its fail mode to each request on its own. The Cluster's cases are in
// cluster-batching.test.ts.
const shared = sharedRedisForFile('batching')
const opened: TestClient[] = []
const servers: RedisServer[] = []
afterEach(async () => {
  for (const c of opened.splice(0)) await c.close()
  for (const s of servers.splice(0)) await s.stop()
})

const NOW = Date.UTC(2026, 0, 1, 12, 0, 30)
let stores = 0

async function storeOn(name: ClientName, options: Partial<RedisStoreOptions> = {}) {
  const client = await sharedTestClient(name)
  opened.push(client)
  const sink = recordingSink()
  const store = bounded(
    new RedisStore({
      client: client.client,
      prefix: `${shared.prefix}:${name}:${stores++}`,
      metrics: sink,
      ...options,
    }),
    5000,
  )
  /** The script calls the store made, of one operation. */
  const calls = (operation: 'consume' | 'consume_all') =>
    sink.observations('floodgate.store.duration', { store: 'redis', operation }).length
  return { store, calls }
}

const ALGORITHMS: Algorithm[] = [
  fixedWindow({ limit: 7, window: '1h' }),
  slidingWindowCounter({ limit: 7, window: '1h' }),
  tokenBucket({ capacity: 7, refillRate: 1, interval: '1h' }),
  gcra({ rate: 1, period: '1h', burst: 7 }),
]

for (const name of CLIENT_NAMES) {
  describe(`same-tick batching (${name}, standalone Redis)`, () => {
    it('1,200 decisions in one tick on 40 keys and 4 algorithms: exactly each limit admitted, in ceil(1,200 / 128) calls', async () => {
      const { store, calls } = await storeOn(name)
      const asked: { key: string; algorithm: Algorithm }[] = []
      for (let round = 0; round < 30; round++)
        for (let k = 0; k < 10; k++)
          for (const algorithm of ALGORITHMS) asked.push({ key: `user-${k}`, algorithm })
      const decisions = await Promise.all(asked.map((a) => store.consume(a.algorithm, a.key, 1, NOW)))
      expect(decisions.every((d) => d.source === 'redis')).toBe(true)
      const admitted = new Map<string, number>()
      decisions.forEach((d, i) => {
        const id = `${asked[i]!.algorithm.kind}:${asked[i]!.key}`
        if (d.allowed) admitted.set(id, (admitted.get(id) ?? 0) + 1)
      })
      expect(admitted.size).toBe(40)
      expect([...admitted.values()].every((n) => n === 7)).toBe(true)
      // Refusals carry the exact wait, as one call per decision gives it: the fixed window's is to its end.
      const refused = decisions.find((d, i) => !d.allowed && asked[i]!.algorithm === ALGORITHMS[0])!
      expect(refused.retryAfterMs).toBe(3_570_000)
      expect(calls('consume_all')).toBe(Math.ceil(asked.length / 128))
      expect(calls('consume')).toBe(0)
    })

    it('requests of one tick stay apart: a refused request spends nothing, and changes nothing of the next', async () => {
      const { store, calls } = await storeOn(name)
      const wide = fixedWindow({ limit: 5, window: '1h' })
      const narrow = fixedWindow({ limit: 1, window: '1h' })
      const both = (cost: number): ConsumeItem[] => [
        { algorithm: wide, key: 'alice', cost: 1 },
        { algorithm: narrow, key: 'alice', cost },
      ]
      const [refused, admitted, alone] = await Promise.all([
        store.consumeAll(both(2), NOW), // the narrow policy can never take 2: refused as a whole
        store.consumeAll(both(1), NOW), // decided after it in the same call: both policies pass
        store.consume(wide, 'alice', 1, NOW),
      ])
      expect(calls('consume_all')).toBe(1)
      expect(refused!.map((d) => d.allowed)).toEqual([true, false])
      expect(admitted!.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 4],
        [true, 0],
      ])
      expect([alone.allowed, alone.remaining]).toEqual([true, 3])
      expect((await store.peek(wide, 'alice', 1, NOW)).remaining).toBe(3)
    })

    it('batch: { maxSize: 8 } sends 100 same-tick decisions as 13 calls; batch: false as 100', async () => {
      const algorithm = fixedWindow({ limit: 1000, window: '1h' })
      const fire = (store: RedisStore) =>
        Promise.all(Array.from({ length: 100 }, (_, i) => store.consume(algorithm, `k${i % 30}`, 1, NOW)))
      const bounded = await storeOn(name, { batch: { maxSize: 8 } })
      expect((await fire(bounded.store)).every((d) => d.allowed && d.source === 'redis')).toBe(true)
      expect([bounded.calls('consume_all'), bounded.calls('consume')]).toEqual([13, 0])
      const unbatched = await storeOn(name, { batch: false })
      expect((await fire(unbatched.store)).every((d) => d.allowed && d.source === 'redis')).toBe(true)
      expect([unbatched.calls('consume_all'), unbatched.calls('consume')]).toEqual([0, 100])
      // Both counted every decision once: 100 over 30 keys.
      for (const store of [bounded.store, unbatched.store]) {
        const left = await Promise.all(
          Array.from({ length: 30 }, (_, k) => store.peek(algorithm, `k${k}`, 1, NOW)),
        )
        expect(left.reduce((sum, d) => sum + (1000 - d.remaining), 0)).toBe(100)
      }
    })

    it('a decision alone in its tick goes as its algorithm’s one-key script, and a request of many items is never split', async () => {
      const { store, calls } = await storeOn(name, { batch: { maxSize: 4 } })
      const algorithm = fixedWindow({ limit: 10, window: '1h' })
      expect((await store.consume(algorithm, 'solo', 1, NOW)).remaining).toBe(9)
      expect([calls('consume'), calls('consume_all')]).toEqual([1, 0])
      const items = Array.from({ length: 6 }, (_, i) => ({ algorithm, key: `{big}:${i}`, cost: 1 }))
      const [big, small] = await Promise.all([
        store.consumeAll(items, NOW),
        store.consume(algorithm, 'solo', 1, NOW),
      ])
      expect(big!.every((d) => d.allowed && d.remaining === 9)).toBe(true)
      expect(small.remaining).toBe(8)
      // Six items over maxSize 4 go as one call of their own; the lone consume after them as another.
      expect([calls('consume'), calls('consume_all')]).toEqual([2, 1])
    })

    it('a failed batch call rejects each of its callers with the store error; a limiter over it applies its fail mode to each request', async () => {
      const server = await startRedis()
      servers.push(server)
      // Two stores on the frozen server (each its own circuit): callers of the first directly, of the second
      // through a limiter whose failMode is a fallback store.
      const sides = [0, 1].map(() => {
        const client = openClient(name, { port: server.port }, { reconnect: true })
        opened.push(client)
        const errors: [string, boolean][] = []
        const sink = recordingSink()
        const store = new RedisStore({
          client: client.client,
          cooldownMs: 60_000,
          metrics: sink,
          onError: (_, event) => errors.push([event.key, event.timedOut]),
        })
        const batchCalls = () =>
          sink.observations('floodgate.store.duration', { store: 'redis', operation: 'consume_all' }).length
        return { client, store, errors, batchCalls }
      })
      const [direct, limited] = sides as [(typeof sides)[0], (typeof sides)[0]]
      const algorithm = fixedWindow({ limit: 3, window: '1h' })
      bounded(direct.store, 200)
      const limiter = createLimiter({
        store: limited.store,
        algorithm,
        failMode: { fallback: new MemoryStore() },
        storeTimeout: '200ms',
      })
      for (const side of sides) {
        await side.client.ready
        expect((await side.store.consume(algorithm, 'warm', 1, NOW)).source).toBe('redis')
      }
      server.pause()
      let settled: PromiseSettledResult<RedisDecision>[]
      let decisions: Decision[]
      try {
        ;[settled, decisions] = await Promise.all([
          Promise.allSettled(
            Array.from({ length: 10 }, (_, i) => direct.store.consume(algorithm, i < 5 ? 'a' : 'b', 1, NOW)),
          ),
          Promise.all(Array.from({ length: 10 }, (_, i) => limiter.consume(i < 5 ? 'a' : 'b'))),
        ])
      } finally {
        server.resume()
      }
      for (const side of sides) {
        // One call for the ten, timed out: each caller was told, with its own key.
        expect(side.batchCalls()).toBe(1)
        expect(side.errors.sort()).toEqual([...Array(5).fill(['a', true]), ...Array(5).fill(['b', true])])
      }
      // Each direct caller's promise rejected with the typed store error.
      for (const result of settled) {
        expect(result.status).toBe('rejected')
        const reason = (result as PromiseRejectedResult).reason
        expect(reason).toBeInstanceOf(RedisStoreError)
        expect(reason.code).toBe('ERR_FLOODGATE_REDIS_TIMEOUT')
      }
      // The limiter's fallback store decided each request: 3 of each key's 5.
      expect(decisions.every((d) => (d as { source?: string }).source === 'fallback')).toBe(true)
      expect(decisions.map((d) => d.allowed)).toEqual([
        true,
        true,
        true,
        false,
        false,
        true,
        true,
        true,
        false,
        false,
      ])
    })
  })
}

describe('same-tick batching on an ioredis client with enableAutoPipelining', () => {
  it('each batch call goes in a pipeline of its own, at once (not held for the auto-pipeline), and stays exact', async () => {
    const client = await sharedTestClient('ioredis', { pipelining: true })
    opened.push(client)
    // The client's own EVALSHA is the auto-pipelined one: counted, and passed on unchanged.
    const ioredis = client.client as unknown as { evalshaBuffer: (...args: unknown[]) => Promise<unknown> }
    const evalshaBuffer = ioredis.evalshaBuffer.bind(ioredis)
    let autoPipelined = 0
    ioredis.evalshaBuffer = (...args) => {
      autoPipelined++
      return evalshaBuffer(...args)
    }
    const sink = recordingSink()
    const store = bounded(
      new RedisStore({
        client: client.client,
        prefix: `${shared.prefix}:auto-pipelining:${stores++}`,
        metrics: sink,
      }),
      5000,
    )
    const algorithm = fixedWindow({ limit: 1, window: '1h' })
    // 256 decisions in one tick on 200 keys: two calls of 128 (the store's bound), 200 admitted, 56 refused.
    const decisions = await Promise.all(
      Array.from({ length: 256 }, (_, i) => store.consume(algorithm, `key-${i % 200}`, 1, NOW)),
    )
    const batchCalls = sink.observations('floodgate.store.duration', {
      store: 'redis',
      operation: 'consume_all',
    })
    expect(batchCalls).toHaveLength(2)
    expect(autoPipelined).toBe(0)
    expect(decisions.every((d) => d.source === 'redis')).toBe(true)
    expect(decisions.filter((d) => d.allowed)).toHaveLength(200)
    // A decision alone in its tick goes as its one-key script, through the auto-pipeline as before.
    expect((await store.consume(algorithm, 'alone', 1, NOW)).allowed).toBe(true)
    expect(autoPipelined).toBe(1)
  })
})
