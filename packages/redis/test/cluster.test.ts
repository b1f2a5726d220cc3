import { fixedWindow, gcra, tokenBucket } from '@floodgate/core'
import { describeStoreConformance, type RedisCluster, startRedisCluster } from '@floodgate/testkit'
import { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keySlot, RedisStore } from '../src/index.js'

// One real 3-master Redis Cluster for the whole file, started from redis-server on free ports.
let cluster: RedisCluster
const clients: Cluster[] = []
const newClient = (options: ConstructorParameters<typeof Cluster>[1] = {}) => {
  const client = new Cluster(cluster.nodes, options)
  clients.push(client)
  return client
}

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 })
}, 60_000)

afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit().catch(() => {})))
  await cluster?.stop()
})

describeStoreConformance('RedisStore (Redis Cluster, 3 masters)', {
  create: () => new RedisStore({ client: newClient(), failMode: 'closed', timeoutMs: 5000 }),
  sequences: 6,
})

describeStoreConformance('RedisStore (Redis Cluster, auto-pipelining)', {
  create: () =>
    new RedisStore({
      client: newClient({ enableAutoPipelining: true }),
      failMode: 'closed',
      timeoutMs: 5000,
    }),
  sequences: 2,
})

describe('RedisStore on a Redis Cluster', () => {
  it('spreads keys over the masters and keeps one key on one slot', async () => {
    const store = new RedisStore({ client: newClient(), failMode: 'closed', timeoutMs: 5000 })
    const algorithm = fixedWindow({ limit: 3, window: '1m' })
    const slots = new Set<number>()
    for (let i = 0; i < 30; i++) {
      const key = `spread:${i}`
      slots.add(keySlot(store.keyOf(algorithm, key)))
      expect((await store.consume(algorithm, key, 1)).allowed).toBe(true)
    }
    expect(slots.size).toBeGreaterThan(20)
    // A key's tag decides its slot, whatever it contains.
    expect(keySlot(store.keyOf(algorithm, 'a{b}c'))).toBe(keySlot(store.keyOf(gcra({ rate: 1 }), 'a{b}c')))
  })

  it('consumeAll across slots: refuses as one and spends nothing when one refuses', async () => {
    const store = new RedisStore({ client: newClient(), failMode: 'closed', timeoutMs: 5000 })
    const a = fixedWindow({ limit: 5, window: '1m' })
    const b = tokenBucket({ capacity: 2, refillRate: 1, interval: '1m' })
    const now = Date.UTC(2026, 0, 1)
    const [keyA, keyB] = [`all:a:${process.pid}`, `all:b:${process.pid}`]
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
    const store = new RedisStore({ client: newClient(), failMode: 'closed', timeoutMs: 5000 })
    const a = fixedWindow({ limit: 5, window: '1m' })
    const b = gcra({ rate: 1, period: '1m', burst: 1 })
    const now = Date.UTC(2026, 0, 1)
    const key = `same:${process.pid}`
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
