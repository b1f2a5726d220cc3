// Builds of the SyncedStore compared side by side with the MemoryStore, in one process, the way the synced suite
// judges its goal (synced.mjs, "side by side in one process"), with more rounds and one case, so that a change of a
// per cent or two shows through this machine's noise: every store takes turns in 20 ms slices in a rotating
// order, its rate is its calls over the time of its own slices, and each round is a fresh process.
//
//   node bench/suites/synced/ab.mjs [rounds] [keys] [builds]
//
//   rounds   fresh processes, each a measurement of every store (default 15)
//   keys     keys decided round robin, one call in flight (default 1000)
//   builds   comma-separated names; `current` is the built @floodgate/redis, any other name NAME is the
//            index.js that FLOODGATE_REDIS_NAME points at (copy a build's dist/ aside before changing the code)
//
// A name ending in `:nosync` runs that build without its syncs (they never fall due), to tell what the syncs
// cost from what the decisions cost. Prints each round's rates and ratios to the MemoryStore, the median
// ratios, and the mean of each build's round-by-round difference from the first build, with its standard error.
//
//   FLOODGATE_REDIS_BEFORE=/tmp/before/index.js node bench/suites/synced/ab.mjs 25 1000 before,current
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startPrivateRedis } from '../../lib/redis-server.mjs'
import { sliceTimers } from './slice-timers.mjs'

const SELF = fileURLToPath(import.meta.url)
const SLICES = 40
const SLICE_MS = 20
const WARMUP_MS = 300
const SYNC_EVERY_MS = 50

const keysOf = (size) => Array.from({ length: size }, (_, i) => `api{198.51.${(i >> 8) & 255}.${i & 255}}`)

async function child([port, size, builds]) {
  const { Redis } = await import('ioredis')
  const core = await import('@floodgate/core')
  const redis = new Redis({ port: Number(port), host: '127.0.0.1', enableAutoPipelining: true })
  const keys = keysOf(Number(size))
  const ids = ['memory', ...builds.split(',')]
  const contenders = []
  for (const id of ids) {
    // Each store its own copy of the loop and its own algorithm: no JIT feedback is shared between them.
    const loop = await import(`./loop.mjs?${id}`)
    const algorithm = core.slidingWindowCounter({ limit: 1e9, window: 3_600_000 })
    let store
    let clock
    if (id === 'memory') store = new core.MemoryStore()
    else {
      const [name] = id.split(':')
      const path =
        name === 'current' ? '@floodgate/redis' : process.env[`FLOODGATE_REDIS_${name.toUpperCase()}`]
      if (!path) throw new Error(`set FLOODGATE_REDIS_${name.toUpperCase()} to the index.js of build ${name}`)
      const { RedisStore, SyncedStore } = await import(path)
      clock = sliceTimers()
      const prefix = `fgab:${process.pid}:${id}`
      store = new SyncedStore({
        store: new RedisStore({ client: redis, prefix, timeoutMs: 5000 }),
        syncEvery: SYNC_EVERY_MS,
        timers: clock.timers,
        processes: 1,
      })
    }
    const syncs = clock && !id.endsWith(':nosync') ? () => clock.fire() : undefined
    contenders.push({
      id,
      store,
      clock,
      syncs,
      decide: loop.decider(store, algorithm),
      throughput: loop.throughput,
    })
  }
  for (const c of contenders) await Promise.all(keys.map(c.decide)) // every key read once first
  const run = async (c, ms) => {
    const r = await c.throughput(c.decide, keys, 1, ms, c.syncs)
    c.clock?.advance(r.elapsedMs)
    return r
  }
  for (const c of contenders) await run(c, WARMUP_MS)
  const totals = Object.fromEntries(ids.map((id) => [id, { calls: 0, ms: 0 }]))
  for (let slice = 0; slice < SLICES; slice++) {
    for (let j = 0; j < contenders.length; j++) {
      const c = contenders[(j + slice) % contenders.length]
      const r = await run(c, SLICE_MS)
      totals[c.id].calls += r.calls
      totals[c.id].ms += r.elapsedMs
    }
  }
  for (const c of contenders) await c.store.close?.()
  redis.disconnect()
  console.log(
    JSON.stringify(Object.fromEntries(ids.map((id) => [id, totals[id].calls / (totals[id].ms / 1000)]))),
  )
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1]

async function main([rounds = '15', size = '1000', builds = 'current']) {
  const redis = await startPrivateRedis()
  if (!redis) throw new Error('no redis-server could be started (apt-get install redis-server)')
  const ratios = {}
  try {
    for (let round = 0; round < Number(rounds); round++) {
      const args = [SELF, '--child', String(redis.port), size, builds]
      const p = spawnSync(process.execPath, args, { encoding: 'utf8', env: process.env })
      if (p.status !== 0) throw new Error(p.stderr)
      const rates = JSON.parse(p.stdout.trim().split('\n').pop())
      const cells = Object.entries(rates).map(([id, rate]) => {
        const ratio = rate / rates.memory
        if (id !== 'memory') {
          ratios[id] ??= []
          ratios[id].push(ratio)
        }
        return `${id} ${(rate / 1e6).toFixed(2)}M/s ${ratio.toFixed(2)}x`
      })
      console.log(cells.join('   '))
    }
  } finally {
    await redis.stop()
  }
  const ids = Object.keys(ratios)
  console.log(`median vs memory: ${ids.map((id) => `${id} ${median(ratios[id]).toFixed(3)}x`).join('   ')}`)
  for (const id of ids.slice(1)) {
    const diffs = ratios[id].map((r, i) => r - ratios[ids[0]][i])
    const mean = diffs.reduce((a, b) => a + b, 0) / diffs.length
    const sd = Math.sqrt(diffs.reduce((a, d) => a + (d - mean) ** 2, 0) / Math.max(1, diffs.length - 1))
    console.log(
      `${id} - ${ids[0]}: ${mean >= 0 ? '+' : ''}${mean.toFixed(3)} (standard error ${(sd / Math.sqrt(diffs.length)).toFixed(3)})`,
    )
  }
}

const argv = process.argv.slice(2)
if (argv[0] === '--child') await child(argv.slice(1))
else await main(argv)
