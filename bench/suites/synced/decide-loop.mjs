// A loop of `n` awaited decisions after a warm-up, for the synced suite's instruction counts:
//
//   node bench/suites/synced/decide-loop.mjs <memory|synced> <keys> <redis port> <n>
//
// Counted by count.mjs beside it. The calling pattern is the timed suite's (synced.mjs): a sliding window
// counter with a quota nobody reaches, `await store.consume(algorithm, key, 1)` on `keys` keys round robin, one
// call in flight, a yield to the event loop every 256 calls. Both stores read a clock the loop drives (1 ms per
// 1,000 decisions), not the wall clock: under valgrind a wall clock's timers fire more often per decision the
// busier the machine is. The SyncedStore reads its keys from the Redis on `port` first, then syncs when the loop
// says: never by default, so the count is of the decisions alone and the same from run to run (a sync's reply
// lands after however many decisions the machine's load allows, and what the process then collects varies with
// it); SYNCED_LOOP_SYNC_EVERY=<n> fires a sync every n decisions (the warm-up then holds two). The syncs' own cost
// is in the timed suite. FLOODGATE_REDIS=<path to an index.js> measures another build of @floodgate/redis (the
// before of a change); SYNCED_LOOP_STATS=1 prints the store's stats at the end.
import { setImmediate as yieldToLoop } from 'node:timers/promises'

const [which, keyCount, port, count] = process.argv.slice(2)
const DECISIONS_PER_SYNC = Number(process.env.SYNCED_LOOP_SYNC_EVERY ?? 0)
const YIELD_EVERY = 256

const core = await import('@floodgate/core')
const algorithm = core.slidingWindowCounter({ limit: 1e9, window: 3_600_000 })
const keys = Array.from({ length: Number(keyCount) }, (_, i) => `api{198.51.${(i >> 8) & 255}.${i & 255}}`)

let calls = 0
const startedAt = Date.now()
const clock = () => startedAt + Math.floor(calls / 1000)

let fire
const timers = {
  setTimeout: (callback) => {
    fire = callback
    return 1
  },
  clearTimeout: () => {
    fire = undefined
  },
}

let store
let redis
if (which === 'synced') {
  const { Redis } = await import('ioredis')
  const { RedisStore, SyncedStore } = await import(process.env.FLOODGATE_REDIS ?? '@floodgate/redis')
  redis = new Redis({ port: Number(port), host: '127.0.0.1', enableAutoPipelining: true })
  const prefix = `fgcount-synced:${process.pid}`
  // A bound on Redis calls far above any round trip under valgrind: a call timed out would be counted offline.
  const redisStore = new RedisStore({ client: redis, prefix, timeoutMs: 120_000 })
  // One process, counted as one from the start (with `processes: 'auto'`, a store that has just joined lets Redis
  // decide until its count has settled over two syncs, which this loop does not run).
  store = new SyncedStore({ store: redisStore, syncEvery: 50, timers, clock, processes: 1 })
} else {
  store = new core.MemoryStore({ clock })
}

await Promise.all(keys.map((key) => store.consume(algorithm, key, 1))) // every key read once
async function run(n) {
  const len = keys.length
  for (let i = 0; i < n; i++) {
    await store.consume(algorithm, keys[calls % len], 1)
    if (++calls % DECISIONS_PER_SYNC === 0 && fire) {
      const sync = fire
      fire = undefined
      sync()
    }
    if (calls % YIELD_EVERY === 0) await yieldToLoop()
  }
}
// With syncs, the warm-up holds two, so that the measured calls run code the JIT has already seen through a sync
// in flight, its landing and the decisions after it (a recompilation in the measured part would be counted).
await run(DECISIONS_PER_SYNC > 0 ? 2 * DECISIONS_PER_SYNC + 20_000 : 30_000)
await run(Number(count))
const stats = store.stats
await store.close()
redis?.disconnect()
// Counted on the path it means to count, or not at all: every decision local, every sync landed.
if (stats && (stats.failedCalls > 0 || stats.offline > 0 || stats.exact > 0)) {
  throw new Error(`the SyncedStore left its local path: ${JSON.stringify(stats)}`)
}
if (process.env.SYNCED_LOOP_STATS) console.log(JSON.stringify(stats))
