import { fixedWindow, gcra, tokenBucket } from '@floodgate/core'
import { bounded, type RedisCluster, startRedisCluster } from '@floodgate/test-harness'
import { testStore } from '@floodgate/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keySlot, RedisStore, type RedisStoreOptions } from '../src/index.js'
import {
  CLIENT_NAMES,
  type ClientName,
  clusterTestClient,
  type Resilience,
  type TestClient,
} from './helpers.js'

// One real 3-master Redis Cluster for the whole file, started from redis-server on free ports.
let cluster: RedisCluster
const clients: TestClient[] = []
const newClient = async (name: ClientName, resilience: Resilience = {}) => {
  const opened = await clusterTestClient(name, cluster.nodes, resilience)
  clients.push(opened)
  return opened.client
}
const newStore = async (
  name: ClientName,
  resilience: Resilience = {},
  options: Partial<RedisStoreOptions> = {},
) => bounded(new RedisStore({ client: await newClient(name, resilience), ...options }), 5000)

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 })
}, 60_000)

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})))
  await cluster?.stop()
})

testStore({
  name: 'RedisStore (Redis Cluster, 3 masters, ioredis)',
  create: () => newStore('ioredis'),
  sequences: 6,
})
testStore({
  name: 'RedisStore (Redis Cluster, 3 masters, node-redis)',
  create: () => newStore('node-redis'),
  sequences: 3,
})
testStore({
  name: 'RedisStore (Redis Cluster, node-redis, batch: false)',
  create: () => newStore('node-redis', {}, { batch: false }),
  sequences: 2,
})
testStore({
  name: 'RedisStore (Redis Cluster, ioredis auto-pipelining)',
  create: () => newStore('ioredis', { pipelining: true }),
  sequences: 2,
})

for (const name of CLIENT_NAMES) {
  describe(`RedisStore on a Redis Cluster (${name})`, () => {
    it('spreads keys over the masters and keeps one key on one slot', async () => {
      const store = await newStore(name)
      const algorithm = fixedWindow({ limit: 3, window: '1m' })
      const slots = new Set<number>()
      for (let i = 0; i < 30; i++) {
        const key = `spread:${name}:${i}`
        slots.add(keySlot(store.keyOf(algorithm, key)))
        expect((await store.consume(algorithm, key, 1)).allowed).toBe(true)
      }
      expect(slots.size).toBeGreaterThan(20)
      // A key's tag decides its slot, whatever it contains.
      expect(keySlot(store.keyOf(algorithm, 'a{b}c'))).toBe(keySlot(store.keyOf(gcra({ rate: 1 }), 'a{b}c')))
    })

    it('consumeAll across slots: refuses as one and spends nothing when one refuses', async () => {
      const store = await newStore(name)
      const a = fixedWindow({ limit: 5, window: '1m' })
      const b = tokenBucket({ capacity: 2, refillRate: 1, interval: '1m' })
      const now = Date.UTC(2026, 0, 1)
      const [keyA, keyB] = [`all:a:${name}:${process.pid}`, `all:b:${name}:${process.pid}`]
      expect(keySlot(store.keyOf(a, keyA))).not.toBe(keySlot(store.keyOf(b, keyB)))
      await store.consume(b, keyB, 2, now)
      const refused = await store.consumeAll(
        [
          { algorithm: a, key: keyA, cost: 1 },
          { algorithm: b, key: keyB, cost: 1 },
        ],
        now,
      )
      expect(refused.map((d) => d.allowed)).toEqual([true, false])
      expect((await store.peek(a, keyA, 1, now)).remaining).toBe(5)
    })

    it('consumeAll on one slot (same key, two policies) is one atomic script', async () => {
      const store = await newStore(name)
      const a = fixedWindow({ limit: 5, window: '1m' })
      const b = gcra({ rate: 1, period: '1m', burst: 1 })
      const now = Date.UTC(2026, 0, 1)
      const key = `same:${name}:${process.pid}`
      const both = await store.consumeAll(
        [
          { algorithm: a, key, cost: 1 },
          { algorithm: b, key, cost: 1 },
        ],
        now,
      )
      expect(both.map((d) => d.allowed)).toEqual([true, true])
      const second = await store.consumeAll(
        [
          { algorithm: a, key, cost: 1 },
          { algorithm: b, key, cost: 1 },
        ],
        now,
      )
      expect(second.map((d) => d.allowed)).toEqual([true, false])
      expect((await store.peek(a, key, 1, now)).remaining).toBe(4)
    })
  })
}
