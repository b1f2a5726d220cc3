// @bench-title Synced store: local counting, approximate global totals
// @bench-flags
//
// Floodgate's SyncedStore (counts locally, syncs totals to Redis every syncEvery) against the RedisStore (one
// round trip per decision) and the MemoryStore (one process, no Redis), side by side in one run, all on a
// private redis-server this suite starts:
//   - decisions per second with 1 and with 256 requests in flight, on one key (a global limit) and on 1,000
//     keys round robin, with a quota nobody reaches (every call admitted, so every store does the same work);
//   - Redis commands per decision (`INFO commandstats` deltas over the measured loop) and, for the SyncedStore,
//     sync calls and key syncs per key per syncEvery;
//   - overshoot: four processes on one key, a burst of 250 concurrent requests each at a limit of 100, and a
//     steady demand of four times the limit over several windows, with exactWithin 0 and 0.1; every window's
//     admitted total against the stated bound (computed from the run's measured sync gap and admission rate).
// Throughput is measured two ways, each round in fresh child processes: the three stores side by side in one
// process, taking turns in short slices in a rotating order (the goal is judged on this: the stores share the
// process's heap, its JIT and whatever the machine is doing at that moment, as they would in one app), and each
// store alone in a process of its own, rounds interleaving the stores. Writes
// bench/results/synced.md and bench/results/synced.json. Imports the built packages: build first
// (`npx turbo run build`, or `cd packages/redis && npx tsup`).
//
//   node bench/suites/synced.mjs            the full suite (about 2 minutes)
//   node bench/suites/synced.mjs --instructions   and the CPU instructions per decision of the SyncedStore and
//                                                 the MemoryStore under valgrind (synced/count.mjs; ~10 minutes idle)
//   node bench/suites/synced.mjs --quick    a smoke run with tiny durations (numbers not representative)

import { fileURLToPath } from 'node:url'
import { parseArgs, runNode, sendResult } from '../lib/child.mjs'
import { buildOf, commandLine, machine } from '../lib/env.mjs'
import { fmtCount, fmtRatio, fmtSpread, mdTable } from '../lib/format.mjs'
import { startPrivateRedis } from '../lib/redis-server.mjs'
import { writeResults } from '../lib/results.mjs'
import { summarize } from '../lib/stats.mjs'
import { countSynced } from './synced/count.mjs'
import { decider, throughput } from './synced/loop.mjs'
import { sliceTimers } from './synced/slice-timers.mjs'

const SELF = fileURLToPath(import.meta.url)
const args = parseArgs()
const quick = Boolean(args.quick)

const CONFIG = {
  rounds: Number(args.rounds ?? (quick ? 1 : 5)),
  warmupMs: quick ? 100 : 300,
  measureMs: quick ? 200 : 600,
  keySets: [1, 1000],
  inFlight: [1, 256],
  syncEvery: 50,
  /** The stores side by side in one process: slices per measurement, and their length (ms) for each store. */
  together: { slices: quick ? 4 : 40, sliceMs: 20, redisSliceMs: 5 },
  client: { enableAutoPipelining: true },
  throughput: { limit: 1e9, windowMs: 3_600_000 },
  fleet: {
    processes: 4,
    burst: { limit: 100, requests: 250 },
    steady: { limit: 1000, windowMs: 1000, durationMs: quick ? 2500 : 5000, tickMs: 10, perTick: 10 },
    exactWithin: [0, 0.1],
  },
}

const CONTENDERS = {
  memory: 'MemoryStore (one process)',
  redis: 'RedisStore (one round trip per decision)',
  synced: `SyncedStore (syncEvery ${CONFIG.syncEvery} ms)`,
}
const IDS = Object.keys(CONTENDERS)

// ---------------------------------------------------------------------------------------------------------
// Child side.

async function client(port) {
  const { Redis } = await import('ioredis')
  const c = new Redis({ port, host: '127.0.0.1', ...CONFIG.client })
  await c.ping()
  return c
}

/**
 * Let a SyncedStore's count of the processes settle: a process that has just joined lets Redis decide until it
 * has seen the same count for two sync intervals (docs/redis.md), and the suite measures the local path.
 */
async function settle(store) {
  await store.sync()
  await new Promise((resolve) => setTimeout(resolve, 2 * CONFIG.syncEvery + 10))
  await store.sync()
}

async function makeStore(id, redis, prefix) {
  const core = await import('@floodgate/core')
  const { RedisStore, SyncedStore } = await import('@floodgate/redis')
  if (id === 'memory') return new core.MemoryStore()
  const store = new RedisStore({ client: redis, prefix, timeoutMs: 5000 })
  if (id === 'redis') return store
  const synced = new SyncedStore({ store, syncEvery: CONFIG.syncEvery })
  await settle(synced)
  return synced
}

/** The scripts Redis ran so far, and the server time (µs) they took (`INFO commandstats`). */
async function commandCalls(redis) {
  const info = await redis.info('commandstats')
  let calls = 0
  let usec = 0
  for (const m of info.matchAll(/^cmdstat_(evalsha|eval|evalsha_ro|eval_ro):calls=(\d+),usec=(\d+)/gm)) {
    calls += Number(m[2])
    usec += Number(m[3])
  }
  return { calls, usec }
}

async function throughputChild() {
  const port = Number(args.port)
  const redis = await client(port)
  const core = await import('@floodgate/core')
  const algorithm = core.slidingWindowCounter({
    limit: CONFIG.throughput.limit,
    window: CONFIG.throughput.windowMs,
  })
  const result = {}
  for (const size of CONFIG.keySets) {
    const store = await makeStore(args.child, redis, `${args.prefix}:${args.child}:${size}`)
    const keys = keysOf(size)
    const decide = decider(store, algorithm)
    await Promise.all(keys.map(decide)) // every key known (read once, in one sync) before measuring
    result[size] = {}
    for (const inFlight of CONFIG.inFlight) {
      await throughput(decide, keys, inFlight, CONFIG.warmupMs)
      const sentBefore = await commandCalls(redis)
      const statsBefore = store.stats
      const run = await throughput(decide, keys, inFlight, CONFIG.measureMs)
      const statsAfter = store.stats
      const sentAfter = await commandCalls(redis)
      const intervals = run.elapsedMs / CONFIG.syncEvery
      result[size][inFlight] = {
        perSecond: run.perSecond,
        perCpuSecond: run.perCpuSecond,
        commandsPerDecision: (sentAfter.calls - sentBefore.calls) / run.calls,
        redisUsPerDecision: (sentAfter.usec - sentBefore.usec) / run.calls,
        ...(statsAfter && {
          syncCallsPerSecond: (statsAfter.calls - statsBefore.calls) / (run.elapsedMs / 1000),
          keySyncsPerKeyPerInterval: (statsAfter.keysSynced - statsBefore.keysSynced) / (size * intervals),
          exact: statsAfter.exact - statsBefore.exact,
        }),
      }
    }
    await store.close()
  }
  redis.disconnect()
  sendResult(result)
}

const keysOf = (size) => Array.from({ length: size }, (_, i) => `api{198.51.${(i >> 8) & 255}.${i & 255}}`)

/**
 * The three stores in one process, taking turns: for each key set and number of calls in flight, every store
 * is warmed up, then runs `slices` slices of `sliceMs` in a rotating order; its rate is its calls over the wall
 * time of its own slices. Each store has its own algorithm instance (the same options), so that no JIT feedback
 * is shared between them.
 */
async function togetherChild() {
  const port = Number(args.port)
  const redis = await client(port)
  const core = await import('@floodgate/core')
  const { RedisStore, SyncedStore } = await import('@floodgate/redis')
  const { limit, windowMs } = CONFIG.throughput
  const result = {}
  for (const size of CONFIG.keySets) {
    const keys = keysOf(size)
    const loops = Object.fromEntries(
      await Promise.all(IDS.map(async (id) => [id, await import(`./synced/loop.mjs?${id}`)])),
    )
    const contenders = IDS.map((id) => {
      const algorithm = core.slidingWindowCounter({ limit, window: windowMs })
      const prefix = `${args.prefix}:together:${id}:${size}`
      const clock = id === 'synced' ? sliceTimers() : undefined
      const redisStore =
        id === 'memory' ? undefined : new RedisStore({ client: redis, prefix, timeoutMs: 5000 })
      const store =
        id === 'memory'
          ? new core.MemoryStore()
          : id === 'redis'
            ? redisStore
            : new SyncedStore({ store: redisStore, syncEvery: CONFIG.syncEvery, timers: clock.timers })
      return {
        id,
        store,
        decide: loops[id].decider(store, algorithm),
        throughput: loops[id].throughput,
        clock,
      }
    })
    for (const c of contenders) {
      if (c.id === 'synced') await settle(c.store)
      await Promise.all(keys.map(c.decide)) // every key known (read once) first
    }
    result[size] = {}
    for (const inFlight of CONFIG.inFlight) {
      const run = async (c, ms) => {
        const r = await c.throughput(c.decide, keys, inFlight, ms, c.clock && (() => c.clock.fire()))
        c.clock?.advance(r.elapsedMs)
        return r
      }
      for (const c of contenders) await run(c, CONFIG.warmupMs)
      const totals = Object.fromEntries(IDS.map((id) => [id, { calls: 0, ms: 0 }]))
      for (let slice = 0; slice < CONFIG.together.slices; slice++) {
        for (let j = 0; j < contenders.length; j++) {
          const c = contenders[(j + slice) % contenders.length]
          const r = await run(c, c.id === 'redis' ? CONFIG.together.redisSliceMs : CONFIG.together.sliceMs)
          totals[c.id].calls += r.calls
          totals[c.id].ms += r.elapsedMs
        }
      }
      result[size][inFlight] = Object.fromEntries(
        IDS.map((id) => [
          id,
          { perSecond: totals[id].calls / (totals[id].ms / 1000), calls: totals[id].calls },
        ]),
      )
    }
    for (const c of contenders) await c.store.close?.()
  }
  redis.disconnect()
  sendResult(result)
}

/** One process of the overshoot fleet: waits for the common start, runs its scenario, reports its admissions. */
async function fleetChild() {
  const port = Number(args.port)
  const redis = await client(port)
  const core = await import('@floodgate/core')
  const { RedisStore, SyncedStore } = await import('@floodgate/redis')
  const limit = Number(args.limit)
  const windowMs = Number(args.window)
  const store = new SyncedStore({
    store: new RedisStore({ client: redis, prefix: args.prefix, timeoutMs: 2000 }),
    syncEvery: CONFIG.syncEvery,
    exactWithin: Number(args.exact),
  })
  const algorithm = core.fixedWindow({ limit, window: windowMs })
  // Start together, once every process of the fleet has joined (counted in Redis).
  await store.sync()
  while (store.processes < CONFIG.fleet.processes && Date.now() < Number(args.startAt) + 10_000) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    await store.sync()
  }
  await settle(store) // every process sees them all for two sync intervals: each decides locally
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(args.startAt) - Date.now())))
  const admittedAt = []
  const perWindow = {}
  const sources = {}
  let decisions = 0
  const decide = async () => {
    const d = await store.consume(algorithm, args.key, 1)
    decisions++
    const source = d.source ?? 'local'
    sources[source] = (sources[source] ?? 0) + 1
    if (!d.allowed) return
    const at = Date.now()
    admittedAt.push(at)
    const window = Math.round((at + d.resetMs - windowMs) / windowMs) * windowMs
    perWindow[window] = (perWindow[window] ?? 0) + 1
  }
  const processes = store.processes
  if (args.burst) {
    await Promise.all(Array.from({ length: Number(args.burst) }, decide))
  } else {
    const { durationMs, tickMs, perTick } = CONFIG.fleet.steady
    const pending = []
    const ends = Date.now() + durationMs
    await new Promise((resolve) => {
      const timer = setInterval(() => {
        if (Date.now() >= ends) {
          clearInterval(timer)
          resolve()
          return
        }
        for (let i = 0; i < perTick; i++) pending.push(decide())
      }, tickMs)
    })
    await Promise.all(pending)
  }
  const stats = store.stats
  await store.close()
  redis.disconnect()
  sendResult({ admittedAt, perWindow, sources, decisions, processes, stats })
}

// ---------------------------------------------------------------------------------------------------------
// Parent side.

async function ensureBuilt() {
  try {
    const { SyncedStore } = await import('@floodgate/redis')
    if (typeof SyncedStore !== 'function') throw new Error('no SyncedStore export')
  } catch (error) {
    throw new Error(
      `@floodgate/redis is not built with SyncedStore (run \`npx turbo run build\`): ${error.message}`,
    )
  }
}

const PREFIX = `fgbench-synced:${process.pid}:${Date.now().toString(36)}`
const passOn = () => (quick ? ['--quick'] : [])

/** The most admissions in any span of `ms`, over every process. */
function mostIn(times, ms) {
  let most = 0
  let from = 0
  for (let to = 0; to < times.length; to++) {
    while (times[to] - times[from] >= ms) from++
    most = Math.max(most, to - from + 1)
  }
  return most
}

/** Four processes at once on one key; per-window totals and the bound from what the run measured. */
async function fleetRun(port, { limit, windowMs, exactWithin, burst }, overshootBound) {
  const startAt = Date.now() + 3000
  const key = `fleet-${Math.random().toString(36).slice(2)}`
  const reports = await Promise.all(
    Array.from({ length: CONFIG.fleet.processes }, () =>
      runNode(
        SELF,
        [
          '--fleet',
          '--port',
          String(port),
          '--prefix',
          PREFIX,
          '--key',
          key,
          '--limit',
          String(limit),
          '--window',
          String(windowMs),
          '--exact',
          String(exactWithin),
          '--startAt',
          String(startAt),
          ...(burst ? ['--burst', String(burst)] : []),
          ...passOn(),
        ],
        { timeoutMs: 60_000 },
      ),
    ),
  )
  const totals = new Map()
  for (const r of reports) {
    for (const [w, n] of Object.entries(r.perWindow)) totals.set(Number(w), (totals.get(Number(w)) ?? 0) + n)
  }
  const times = reports.flatMap((r) => r.admittedAt).sort((a, b) => a - b)
  const gap = Math.max(CONFIG.syncEvery, ...reports.map((r) => r.stats.longestSyncGapMs))
  const rate = Math.max(mostIn(times, 2 * gap) / (2 * gap), mostIn(times, 3 * gap) / (3 * gap))
  const bound = burst
    ? overshootBound({ limit, exactWithin })
    : overshootBound({ limit, exactWithin, rate, syncGapMs: gap })
  // Full windows only: the first and last are cut by the run's start and end.
  const windows = [...totals.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n)
  const full = burst ? windows : windows.slice(1, -1)
  const decisions = reports.reduce((s, r) => s + r.decisions, 0)
  const local = reports.reduce((s, r) => s + (r.sources.local ?? 0), 0)
  return {
    limit,
    exactWithin,
    burst: burst ?? null,
    windows: full,
    worst: Math.max(...full),
    overshoot: Math.max(0, Math.max(...full) - limit),
    meanOvershoot: full.reduce((s, n) => s + Math.max(0, n - limit), 0) / full.length,
    bound,
    gapMs: gap,
    ratePerSecond: rate * 1000,
    processes: reports.map((r) => r.processes),
    localShare: local / decisions,
    decisions,
  }
}

async function main() {
  await ensureBuilt()
  const { overshootBound } = await import('@floodgate/redis')
  const started = Date.now()
  // A redis-server of the suite's own, so that command counts and server time are this run's alone.
  const redis = await startPrivateRedis()
  if (!redis) {
    throw new Error(
      'The synced bench starts its own redis-server, and none could be started: install it (apt-get install redis-server).',
    )
  }
  const perCell = () =>
    Object.fromEntries(
      IDS.map((id) => [
        id,
        Object.fromEntries(
          CONFIG.keySets.map((size) => [size, Object.fromEntries(CONFIG.inFlight.map((n) => [n, []]))]),
        ),
      ]),
    )
  const samples = perCell()
  const extra = perCell()
  try {
    for (let round = 0; round < CONFIG.rounds; round++) {
      const order = round % 2 === 0 ? IDS : [...IDS].reverse()
      for (const id of order) {
        const result = await runNode(
          SELF,
          ['--child', id, '--port', String(redis.port), '--prefix', PREFIX, ...passOn()],
          { timeoutMs: 90_000 },
        )
        for (const size of CONFIG.keySets) {
          for (const n of CONFIG.inFlight) {
            samples[id][size][n].push(result[size][n].perSecond)
            extra[id][size][n].push(result[size][n])
          }
        }
        process.stderr.write(
          `round ${round + 1} ${id.padEnd(7)} ${CONFIG.keySets
            .flatMap((size) =>
              CONFIG.inFlight.map((n) => `${size} key(s) x ${n}: ${fmtCount(result[size][n].perSecond)}/s`),
            )
            .join('  ')}\n`,
        )
      }
    }
    // The stores side by side in one process, a fresh process each round.
    const together = Object.fromEntries(
      IDS.map((id) => [
        id,
        Object.fromEntries(
          CONFIG.keySets.map((size) => [size, Object.fromEntries(CONFIG.inFlight.map((n) => [n, []]))]),
        ),
      ]),
    )
    for (let round = 0; round < CONFIG.rounds; round++) {
      const result = await runNode(
        SELF,
        ['--together', '--port', String(redis.port), '--prefix', `${PREFIX}:${round}`, ...passOn()],
        { timeoutMs: 180_000 },
      )
      for (const size of CONFIG.keySets) {
        for (const n of CONFIG.inFlight) {
          for (const id of IDS) together[id][size][n].push(result[size][n][id].perSecond)
        }
      }
      process.stderr.write(
        `round ${round + 1} together ${CONFIG.keySets
          .flatMap((size) =>
            CONFIG.inFlight.map(
              (n) =>
                `${size} key(s) x ${n}: synced/memory ${fmtRatio(result[size][n].synced.perSecond / result[size][n].memory.perSecond)}`,
            ),
          )
          .join('  ')}\n`,
      )
    }
    const fleet = []
    fleet.push(
      await fleetRun(
        redis.port,
        {
          limit: CONFIG.fleet.burst.limit,
          windowMs: 3_600_000,
          exactWithin: 0,
          burst: CONFIG.fleet.burst.requests,
        },
        overshootBound,
      ),
    )
    for (const exactWithin of CONFIG.fleet.exactWithin) {
      const { limit, windowMs } = CONFIG.fleet.steady
      fleet.push(await fleetRun(redis.port, { limit, windowMs, exactWithin }, overshootBound))
      process.stderr.write(`fleet exactWithin ${exactWithin}: ${JSON.stringify(fleet.at(-1))}\n`)
    }
    const instructions = args.instructions ? await countSynced({ keySets: CONFIG.keySets }) : undefined
    report({ samples, extra, together, fleet, instructions, started })
  } finally {
    await redis.stop()
  }
}

/** For each number of calls in flight: its rate, its ratio to the MemoryStore's, then `more` columns. */
const inFlightColumns = (more) =>
  CONFIG.inFlight.flatMap((n) => [
    { title: `${n} in flight`, align: 'right' },
    { title: 'vs memory', align: 'right' },
    ...more,
  ])

function report({ samples, extra, together, fleet, instructions, started }) {
  const stats = {}
  for (const id of IDS) {
    stats[id] = {}
    for (const size of CONFIG.keySets) {
      stats[id][size] = {}
      for (const n of CONFIG.inFlight) stats[id][size][n] = summarize(samples[id][size][n])
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
  const extraMedian = (id, size, n, field) => median(extra[id][size][n].map((cell) => cell[field] ?? 0))
  const ratio = (id, size, n) => stats[id][size][n].median / stats.memory[size][n].median
  const cpuRatio = (id, size, n) =>
    extraMedian(id, size, n, 'perCpuSecond') / extraMedian('memory', size, n, 'perCpuSecond')
  // Side by side in one process: the median over rounds of each store's rate, and of its ratio to the
  // MemoryStore's in the same round.
  const togetherStats = (id, size, n) => summarize(together[id][size][n])
  const togetherRatio = (id, size, n) =>
    median(together[id][size][n].map((v, round) => v / together.memory[size][n][round]))
  const rows = []
  for (const size of CONFIG.keySets) {
    for (const id of IDS) {
      rows.push([
        `${CONTENDERS[id]}, ${size === 1 ? '1 key' : `${size.toLocaleString('en')} keys`}`,
        ...CONFIG.inFlight.flatMap((n) => [
          `${fmtCount(stats[id][size][n].median)}/s ${fmtSpread(stats[id][size][n].spread)}`,
          fmtRatio(ratio(id, size, n)),
          fmtRatio(cpuRatio(id, size, n)),
        ]),
        CONFIG.inFlight
          .map((n) => extraMedian(id, size, n, 'commandsPerDecision').toFixed(id === 'synced' ? 5 : 2))
          .join(' / '),
        CONFIG.inFlight
          .map((n) => extraMedian(id, size, n, 'redisUsPerDecision').toFixed(id === 'synced' ? 3 : 1))
          .join(' / '),
        id === 'synced'
          ? CONFIG.inFlight
              .map((n) => extraMedian(id, size, n, 'keySyncsPerKeyPerInterval').toFixed(2))
              .join(' / ')
          : '',
      ])
    }
  }
  const syncedRatios = CONFIG.keySets.flatMap((size) => CONFIG.inFlight.map((n) => ratio('synced', size, n)))
  const syncedTogetherRatios = CONFIG.keySets.flatMap((size) =>
    CONFIG.inFlight.map((n) => togetherRatio('synced', size, n)),
  )
  const togetherRows = CONFIG.keySets.flatMap((size) =>
    IDS.map((id) => [
      `${CONTENDERS[id]}, ${size === 1 ? '1 key' : `${size.toLocaleString('en')} keys`}`,
      ...CONFIG.inFlight.flatMap((n) => [
        `${fmtCount(togetherStats(id, size, n).median)}/s ${fmtSpread(togetherStats(id, size, n).spread)}`,
        fmtRatio(togetherRatio(id, size, n)),
      ]),
    ]),
  )
  const syncedCpuRatios = CONFIG.keySets.flatMap((size) =>
    CONFIG.inFlight.map((n) => cpuRatio('synced', size, n)),
  )
  const roundTrips = CONFIG.keySets.flatMap((size) =>
    CONFIG.inFlight.map((n) => extraMedian('synced', size, n, 'keySyncsPerKeyPerInterval')),
  )
  const goals = {
    atLeast80PercentOfMemory: syncedTogetherRatios.every((r) => r >= 0.8),
    lowestRatio: Math.min(...syncedTogetherRatios),
    lowestRatioAlone: Math.min(...syncedRatios),
    lowestCpuRatio: Math.min(...syncedCpuRatios),
    atMostOneRoundTripPerKeyPerInterval: roundTrips.every((r) => r <= 1.0001),
    mostRoundTripsPerKeyPerInterval: Math.max(...roundTrips),
    overshootWithinBound: fleet.every((f) => f.worst <= f.limit + f.bound),
  }
  const fleetRows = fleet.map((f) => [
    f.burst
      ? `burst: ${CONFIG.fleet.processes} x ${f.burst} concurrent`
      : `steady, ${CONFIG.fleet.processes} x ${(1000 / CONFIG.fleet.steady.tickMs) * CONFIG.fleet.steady.perTick}/s`,
    String(f.limit),
    String(f.exactWithin),
    f.windows.join(', '),
    `+${f.overshoot} (${((100 * f.overshoot) / f.limit).toFixed(1)}%)`,
    `+${f.bound.toFixed(1)}`,
    f.burst ? 'any traffic' : `D ${f.gapMs.toFixed(0)} ms, R ${fmtCount(f.ratePerSecond)}/s`,
    `${(100 * f.localShare).toFixed(1)}%`,
  ])
  const md = [
    '## Synced store: local counting, approximate global totals',
    '',
    `Decisions per second on a private redis-server, with 1 and with 256 requests in flight, on one key (a global ` +
      `limit) and on 1,000 keys round robin, every call admitted (a sliding window counter with a quota nobody ` +
      `reaches), ioredis with \`${JSON.stringify(CONFIG.client)}\`.`,
    '',
    '### Side by side in one process',
    '',
    `The three stores in one Node process, taking turns: each is warmed up, then they run ${CONFIG.together.slices} ` +
      `slices each in a rotating order (${CONFIG.together.sliceMs} ms for the MemoryStore and the SyncedStore, ` +
      `${CONFIG.together.redisSliceMs} ms for the RedisStore), and a store's rate is its calls over the time of its own ` +
      'slices. They share the heap, the JIT and whatever else the machine does at that moment, as stores in one app ' +
      "would; each has its own algorithm instance, so no JIT feedback is shared. The SyncedStore's syncs fall due " +
      `after ${CONFIG.syncEvery} ms of its own slices and run in them, so it pays for them itself (the replies are read ` +
      `whenever they arrive). Each cell is the median of ${CONFIG.rounds} rounds, each a fresh process (± half the ` +
      "spread); 1.0x = the MemoryStore in the same round, the median of the rounds' ratios. **The goal is judged here.**",
    '',
    mdTable(['store', ...inFlightColumns([])], togetherRows),
    '',
    '### Each store alone in its process',
    '',
    `Each store in a process of its own, ${CONFIG.rounds} rounds interleaving the stores, ${CONFIG.measureMs} ms ` +
      "per measurement (± half the spread). A process here runs its store alone, so the MemoryStore's process has " +
      'no Redis client, no socket and a smaller heap to collect; on this shared 2-core machine these rates also move ' +
      'by tens of per cent from one process to the next. 1.0x = the MemoryStore in the same row group and column, ' +
      "median to median. *Per CPU-s* compares decisions per second of the process's own CPU " +
      "time (the Redis server's time is counted apart). " +
      '*Commands* are the EVALSHA/EVAL calls Redis counted per decision and *Redis µs* the server time they took ' +
      '(`INFO commandstats`); *key syncs* are how many times per `syncEvery` each key was sent. The last three columns ' +
      'give 1 / 256 in flight.',
    '',
    mdTable(
      [
        'store',
        ...inFlightColumns([{ title: 'per CPU-s vs memory', align: 'right' }]),
        { title: 'commands per decision', align: 'right' },
        { title: 'Redis µs per decision', align: 'right' },
        { title: 'key syncs per key per syncEvery', align: 'right' },
      ],
      rows,
    ),
    '',
    ...(instructions
      ? [
          '### CPU instructions per decision (valgrind callgrind)',
          '',
          'The same calls as above, one in flight, in `bench/suites/synced/decide-loop.mjs` (counted by `count.mjs` beside ' +
            'it), on a clock the loop drives: the decisions alone, every key read once and no sync in the count (a sync ' +
            "lands after however many decisions the machine's load allows, so a count holding one varies from run to run; " +
            "the syncs' cost is in the timed table above). Counts every instruction the process runs, the garbage " +
            "collector's included, not what memory accesses cost in cache misses. The SyncedStore's count still moved by " +
            'up to 1.7x between runs of nearly the same code: compare it over several runs.',
          '',
          mdTable(
            [
              'keys',
              { title: 'MemoryStore', align: 'right' },
              { title: 'SyncedStore', align: 'right' },
              { title: 'SyncedStore / MemoryStore', align: 'right' },
            ],
            CONFIG.keySets.map((size) => [
              size.toLocaleString('en'),
              Math.round(instructions[size].memory).toLocaleString('en'),
              Math.round(instructions[size].synced).toLocaleString('en'),
              `${(instructions[size].synced / instructions[size].memory).toFixed(2)}x`,
            ]),
          ),
          '',
        ]
      : []),
    `### Overshoot: ${CONFIG.fleet.processes} processes on one key`,
    '',
    'Each process is a separate Node process with its own SyncedStore (`syncEvery: 50ms`, processes counted in Redis). ' +
      `The burst: ${CONFIG.fleet.burst.requests} concurrent requests in each process at a limit of ${CONFIG.fleet.burst.limit}. ` +
      `The steady runs: a fixed window of ${CONFIG.fleet.steady.limit} per second, each process sending ` +
      `${(1000 / CONFIG.fleet.steady.tickMs) * CONFIG.fleet.steady.perTick} requests a second (the fleet four times the limit) ` +
      `for ${CONFIG.fleet.steady.durationMs / 1000} s; the full windows are listed. *Bound* is the stated worst case ` +
      '(`overshootBound`), computed from what the run measured: *D* the longest sync gap of any process, *R* the most the ' +
      'fleet admitted per second over any two to three sync gaps. *Local* is the share of decisions made without a round trip.',
    '',
    mdTable(
      [
        'run',
        { title: 'limit', align: 'right' },
        { title: 'exactWithin', align: 'right' },
        'admitted per window',
        { title: 'worst overshoot', align: 'right' },
        { title: 'bound', align: 'right' },
        'measured',
        { title: 'local', align: 'right' },
      ],
      fleetRows,
    ),
    '',
    `Goals: at least 0.8x the MemoryStore's decisions per second ${goals.atLeast80PercentOfMemory ? 'met' : 'NOT met'} ` +
      `side by side in one process (lowest: ${fmtRatio(goals.lowestRatio)}; each store alone in its process: ` +
      `${fmtRatio(goals.lowestRatioAlone)}, per CPU-second ${fmtRatio(goals.lowestCpuRatio)}); at most one round trip per key per syncEvery per process ` +
      `${goals.atMostOneRoundTripPerKeyPerInterval ? 'met' : 'NOT met'} (most: ${goals.mostRoundTripsPerKeyPerInterval.toFixed(2)}); ` +
      `measured overshoot within the stated bound ${goals.overshootWithinBound ? 'met' : 'NOT met'}.`,
    '',
    'The RedisStore pays one round trip per decision (its rate is the loopback round trip, here on an idle private ' +
      'Redis); the SyncedStore pays one sync call per `syncEvery` for all the keys used in it (one per 256 keys, one per ' +
      'Cluster slot), so its commands per decision fall as the rate rises. On a shared 2-core machine these numbers move ' +
      'by tens of per cent from run to run: compare within a run.',
    '',
    `Measured with \`${commandLine()}\` in ${Math.round((Date.now() - started) / 1000)} s.${quick ? ' (--quick: numbers not representative.)' : ''}`,
  ].join('\n')
  const json = {
    meta: { ...machine(), command: commandLine(), config: CONFIG, quick, build: buildOf('@floodgate/redis') },
    throughput: Object.fromEntries(
      IDS.map((id) => [
        id,
        {
          label: CONTENDERS[id],
          ...Object.fromEntries(
            CONFIG.keySets.map((size) => [
              size,
              Object.fromEntries(
                CONFIG.inFlight.map((n) => [
                  n,
                  {
                    ...stats[id][size][n],
                    samples: samples[id][size][n],
                    vsMemory: ratio(id, size, n),
                    cells: extra[id][size][n],
                  },
                ]),
              ),
            ]),
          ),
        },
      ]),
    ),
    together: Object.fromEntries(
      IDS.map((id) => [
        id,
        Object.fromEntries(
          CONFIG.keySets.map((size) => [
            size,
            Object.fromEntries(
              CONFIG.inFlight.map((n) => [
                n,
                {
                  ...togetherStats(id, size, n),
                  samples: together[id][size][n],
                  vsMemory: togetherRatio(id, size, n),
                },
              ]),
            ),
          ]),
        ),
      ]),
    ),
    overshoot: fleet,
    ...(instructions && { instructionsPerDecision: instructions }),
    goals,
  }
  const files = writeResults('synced', md, json)
  console.log(md)
  console.log(`\nwrote ${files.md} and ${files.json}`)
}

if (args.child) await throughputChild()
else if (args.together) await togetherChild()
else if (args.fleet) await fleetChild()
else await main()
