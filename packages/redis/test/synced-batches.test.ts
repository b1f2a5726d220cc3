import { fixedWindow, slidingWindowCounter } from '@floodgate/core'
import { type RedisCluster, startRedisCluster } from '@floodgate/test-harness'
import { virtualClock } from '@floodgate/testing'
import { Cluster, type Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keySlot, RedisStore, SyncedStore } from '../src/index.js'
import { manualTimers } from './fixtures/synced-timers.js'
import { sharedRedisForFile } from './helpers.js'

// What one sync sends: every key used since the last, in calls of at most 256 keys per algorithm on one Redis,
// one call per slot and algorithm on a Cluster, all sent at once. On a virtual clock with timers fired by the
// test; the totals live in the shared Redis (db 9, a prefix of this file's own) and in a Cluster this file
// starts.
const start = Date.UTC(2026, 0, 1, 12)
const window = fixedWindow({ limit: 1000, window: '1m' })
const counter = slidingWindowCounter({ limit: 1000, window: '1m' })

function syncedOver(client: Redis | Cluster, prefix: string) {
  const store = new SyncedStore({
    store: new RedisStore({ client, prefix, failMode: 'closed', timeoutMs: 5000 }),
    clock: virtualClock(start).now,
    timers: manualTimers(),
    processes: 1,
  })
  return store
}

/** Use each key of `keys` once (each is read at its first use), then `times` more: what the next sync sends. */
async function use(store: SyncedStore, keys: string[], times: number) {
  await Promise.all(keys.map((key) => store.consume(window, key, 1, start)))
  for (let i = 0; i < times; i++) for (const key of keys) await store.consume(window, key, 1, start)
}

describe('SyncedStore: what a sync sends', () => {
  const shared = sharedRedisForFile('synced-batches')

  it('on one Redis: 300 keys of one algorithm in two calls (256 and 44), two algorithms in their own calls', async () => {
    const store = syncedOver(shared.client, `${shared.prefix}:one`)
    await store.consume(counter, 'other', 1, start) // read at once
    await store.sync()
    const keys = Array.from({ length: 300 }, (_, i) => `client-${i}`)
    await use(store, keys, 2)
    await store.consume(counter, 'other', 1, start)
    const before = store.stats
    await store.sync()
    const after = store.stats
    expect(after.syncs - before.syncs).toBe(1)
    expect(after.calls - before.calls).toBe(3) // 256 + 44 fixed-window keys, 1 sliding-window key
    expect(after.keysSynced - before.keysSynced).toBe(301)
    for (const key of ['client-0', 'client-255', 'client-256', 'client-299']) {
      expect((await shared.client.getBuffer(store.store.keyOf(window, key)))?.readDoubleLE(8)).toBe(3)
    }
    await store.close()
  })
})

describe('SyncedStore on a Cluster: what a sync sends', () => {
  let cluster: RedisCluster
  let client: Cluster
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 })
    client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 1 } })
    await client.ping()
  }, 60_000)
  afterAll(async () => {
    client?.disconnect()
    await cluster?.stop()
  })

  it('one call per slot holding a used key, all in one sync, each total in its own slot', async () => {
    const store = syncedOver(client, `fgtest:synced-batches:${Date.now()}`)
    const keys = Array.from({ length: 40 }, (_, i) => `client-${i}`)
    await use(store, keys, 2)
    const slots = new Set(keys.map((key) => keySlot(store.store.keyOf(window, key))))
    expect(slots.size).toBeGreaterThan(10) // spread over the Cluster: several masters, many slots
    const before = store.stats
    await store.sync()
    const after = store.stats
    expect(after.syncs - before.syncs).toBe(1)
    expect(after.calls - before.calls).toBe(slots.size)
    expect(after.failedCalls).toBe(0)
    for (const key of keys) {
      expect((await client.getBuffer(store.store.keyOf(window, key)))?.readDoubleLE(8)).toBe(3)
    }
    await store.close()
  })
})
