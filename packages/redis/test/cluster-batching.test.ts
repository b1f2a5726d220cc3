import { type Algorithm, fixedWindow, slidingWindowCounter, tokenBucket } from '@floodgate/core'
import { bounded, type RedisCluster, recordingSink, startRedisCluster } from '@floodgate/test-harness'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keySlot, type RedisDecision, RedisStore } from '../src/index.js'
import { CLIENT_NAMES, type ClientName, clusterTestClient, type TestClient } from './helpers.js'

// Same-tick batching on a real 3-master Redis Cluster this file starts: decisions of one tick go as one call
// per slot and stay exact across keys and slots; and a slot moved to another master while batches run (its
// keys migrated one by one, so batches meet ASK, TRYAGAIN and then MOVED) loses no decision and takes none
// twice. With each client the store takes.
let cluster: RedisCluster
const clients: TestClient[] = []
const NOW = Date.UTC(2026, 0, 1, 12, 0, 30)
let stores = 0

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 })
}, 60_000)

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})))
  await cluster?.stop()
})

async function storeOn(name: ClientName, pipelining = false) {
  const opened = await clusterTestClient(name, cluster.nodes, { pipelining })
  clients.push(opened)
  const sink = recordingSink()
  const store = bounded(
    new RedisStore({
      client: opened.client,
      prefix: `batch${stores++}`,
      metrics: sink,
    }),
    10_000,
  )
  const calls = () =>
    sink.observations('floodgate.store.duration', { store: 'redis', operation: 'consume_all' }).length +
    sink.observations('floodgate.store.duration', { store: 'redis', operation: 'consume' }).length
  return { store, calls }
}

/** A plain client of each master, by port. */
const admins = () => cluster.nodes.map((n) => new Redis({ host: n.host, port: n.port }))

/** The redirections and retries the masters have answered so far: MOVED, ASK and TRYAGAIN replies. */
async function redirections(nodes: Redis[]): Promise<number> {
  let total = 0
  for (const node of nodes) {
    const info = await node.info('errorstats')
    for (const m of info.matchAll(/^errorstat_(MOVED|ASK|TRYAGAIN):count=(\d+)/gm)) total += Number(m[2])
  }
  return total
}

/**
 * Move `slot` from its master to another, as `redis-cli --cluster reshard` does: the target imports, the source
 * migrates, each key is MIGRATEd on its own with `pause` between them (so batches run while the slot's keys are
 * split between the two, and wait: TRYAGAIN), then every master is told the slot's new owner.
 */
async function moveSlot(nodes: Redis[], slot: number, pause: () => Promise<void>): Promise<void> {
  const ids = await Promise.all(nodes.map((n) => n.call('CLUSTER', 'MYID') as Promise<string>))
  const ranges = (await nodes[0]!.call('CLUSTER', 'SLOTS')) as [number, number, [string, number, string]][]
  const owner = ranges.find(([from, to]) => from <= slot && slot <= to)![2][2]
  const source = ids.indexOf(owner)
  const target = (source + 1) % nodes.length
  await nodes[target]!.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', ids[source]!)
  await nodes[source]!.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', ids[target]!)
  await pause()
  const { host, port } = cluster.nodes[target]!
  for (;;) {
    const keys = (await nodes[source]!.call('CLUSTER', 'GETKEYSINSLOT', slot, 1)) as string[]
    if (keys.length === 0) break
    await nodes[source]!.call('MIGRATE', host, port, '', 0, 5000, 'KEYS', keys[0]!)
    await pause()
  }
  // The target first, then the source (which then answers MOVED), then the others.
  for (const i of [target, source, 3 - target - source])
    await nodes[i]!.call('CLUSTER', 'SETSLOT', slot, 'NODE', ids[target]!)
}

// Each client, and ioredis with enableAutoPipelining (whose batch calls go in pipelines of their own).
const VARIANTS = [
  ...CLIENT_NAMES.map((name) => ({ name, pipelining: false })),
  { name: 'ioredis' as const, pipelining: true },
]

for (const { name, pipelining } of VARIANTS) {
  describe(`same-tick batching on a Redis Cluster (${name}${pipelining ? ', auto-pipelining' : ''})`, () => {
    it('1,000 decisions in one tick over 50 keys: one call per slot, exactly each limit admitted', async () => {
      const { store, calls } = await storeOn(name, pipelining)
      const algorithm = fixedWindow({ limit: 9, window: '1h' })
      const keys = Array.from({ length: 1000 }, (_, i) => `caller-${i % 50}`)
      const slots = new Set(keys.map((key) => keySlot(store.keyOf(algorithm, key))))
      expect(slots.size).toBeGreaterThan(40)
      const decisions = await Promise.all(keys.map((key) => store.consume(algorithm, key, 1, NOW)))
      expect(decisions.every((d) => d.source === 'redis')).toBe(true)
      const admitted = new Map<string, number>()
      decisions.forEach((d, i) => {
        if (d.allowed) admitted.set(keys[i]!, (admitted.get(keys[i]!) ?? 0) + 1)
      })
      expect(admitted.size).toBe(50)
      expect([...admitted.values()].every((n) => n === 9)).toBe(true)
      // 20 decisions per key, 50 keys on their slots: one call per slot.
      expect(calls()).toBe(slots.size)
    })

    it('a slot moved to another master while batches run: no decision lost, none taken twice', async () => {
      const { store } = await storeOn(name, pipelining)
      const limit = 1_000_000
      const window = fixedWindow({ limit, window: '1h' })
      const counter = slidingWindowCounter({ limit, window: '1h' })
      const bucket = tokenBucket({ capacity: limit, refillRate: 1, interval: '1h' })
      // One caller: its keys (one per algorithm) share the slot that moves.
      const caller = `moving-${name}${pipelining ? '-pipelining' : ''}`
      const slot = keySlot(store.keyOf(window, caller))
      const nodes = admins()
      try {
        const before = await redirections(nodes)
        const answered: { algorithm: Algorithm; decision: RedisDecision }[] = []
        let running = true
        /** Waves of 30 requests in one tick each: 10 on the window, 10 on the counter, 10 layered. */
        const waves = (async () => {
          while (running) {
            const singles = [window, counter].flatMap((algorithm) =>
              Array.from({ length: 10 }, () =>
                store.consume(algorithm, caller, 1, NOW).then((decision) => {
                  answered.push({ algorithm, decision })
                }),
              ),
            )
            const layered = Array.from({ length: 10 }, () =>
              store
                .consumeAll(
                  [
                    { algorithm: window, key: caller, cost: 1 },
                    { algorithm: bucket, key: caller, cost: 1 },
                  ],
                  NOW,
                )
                .then(([w, b]) => {
                  answered.push({ algorithm: window, decision: w as RedisDecision })
                  answered.push({ algorithm: bucket, decision: b as RedisDecision })
                }),
            )
            await Promise.all([...singles, ...layered])
          }
        })()
        const wavesFor = async (count: number) => {
          const until = answered.length + count * 40
          while (answered.length < until) await new Promise((r) => setTimeout(r, 5))
        }
        await wavesFor(3)
        // Batches keep going through the move (a slot split between two masters answers TRYAGAIN, so they
        // wait for the next step rather than run).
        await moveSlot(nodes, slot, () => new Promise((r) => setTimeout(r, 50)))
        await wavesFor(5)
        running = false
        await waves

        expect(answered.every(({ decision }) => decision.source === 'redis' && decision.allowed)).toBe(true)
        const taken = (algorithm: Algorithm) => answered.filter((a) => a.algorithm === algorithm).length
        for (const algorithm of [window, counter, bucket]) {
          const left = await store.peek(algorithm, caller, 1, NOW)
          expect(left.source).toBe('redis')
          expect(limit - left.remaining).toBe(taken(algorithm))
        }
        // The batches did meet the move.
        expect(await redirections(nodes)).toBeGreaterThan(before)
      } finally {
        for (const node of nodes) node.disconnect()
      }
    }, 60_000)
  })
}
