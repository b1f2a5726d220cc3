// @bench-title Metrics
// @bench-flags
//
// What metrics cost a limiter, in one run: core's createRateLimitHandler on its MemoryStore deciding one
// client's requests (one policy, and three layered), and on a RedisStore (one policy; the store records each
// call's duration), with metrics off, through prom-client (`prometheus({ register })`) and through the
// OpenTelemetry SDK (`openTelemetry({ meter })`):
//   - CPU time per decision (user + system), each configuration in a fresh child process, rounds interleaved,
//     the extra cost of each sink paired with metrics off within a round;
//   - heap bytes allocated per decision, in a child with a 128 MB young generation so that no GC runs while it
//     is measured (a try during which one ran is thrown away): metrics off must allocate what a core without
//     the metrics hook allocates (`--baseline <core dist/index.js>` adds that row).
// `--instructions` instead counts CPU instructions per HTTP request under valgrind (metrics/http-count.mjs):
// Express, Fastify and Koa, MemoryStore and RedisStore, off and each sink, which resolves what a timed run
// cannot (the HTTP suite's noise is ±10 µs); each mode keeps the other's stored results. Writes
// bench/results/metrics.md and bench/results/metrics.json. Imports the built packages.
//
//   node bench/suites/metrics.mjs                 the timed suite (about 4 minutes on 2 cores)
//   node bench/suites/metrics.mjs --instructions  the instruction counts (about an hour, two valgrinds;
//                                                 --resume <file.json> keeps what was counted, to go on)
//   node bench/suites/metrics.mjs --quick         a smoke run (numbers not representative)
//   node bench/suites/metrics.mjs --baseline /path/to/core/dist/index.js
//   node bench/suites/metrics.mjs --render        only rewrite bench/results/metrics.md from metrics.json

import { fileURLToPath } from 'node:url'
import { parseArgs, runNode, sendResult } from '../lib/child.mjs'
import { buildOf, commandLine, machine } from '../lib/env.mjs'
import { startPrivateRedis } from '../lib/redis-server.mjs'
import { readResults, writeResults } from '../lib/results.mjs'
import { quartiles } from '../lib/stats.mjs'
import { bytesPerDecision, cpuPerDecision, limiterOf } from './metrics/decide.mjs'
import { measureHttpInstructions } from './metrics/http-run.mjs'
import { instrumentCosts } from './metrics/instruments.mjs'
import { render } from './metrics/render.mjs'

const SELF = fileURLToPath(import.meta.url)
const args = parseArgs()
const quick = Boolean(args.quick)
const CONFIG = {
  rounds: Number(args.rounds ?? (quick ? 1 : 7)),
  cpu: { warmup: quick ? 20_000 : 100_000, n: quick ? 50_000 : 400_000 },
  alloc: { warmup: quick ? 20_000 : 100_000, n: 40_000, windows: quick ? 2 : 5 },
  /** The young generation, in MB: larger than what `alloc.n` decisions allocate (about 70 MB with one policy, 95 MB with three), so no GC runs meanwhile. */
  semiSpaceMb: 128,
  baseline: typeof args.baseline === 'string' ? args.baseline : undefined,
  /** Calls per instrument for the per-call costs, in a child of their own, `rounds` times. */
  instrumentCalls: quick ? 100_000 : 1_000_000,
  instrumentRuns: quick ? 1 : 3,
  /** Children per configuration for the heap bytes: one build varies by tens of bytes from one process to the next. */
  allocRuns: quick ? 1 : 3,
  /**
   * The RedisStore scenario: each decision is a round trip, so fewer of them; its heap window holds 4k
   * decisions (about 14 kB each, ioredis's included: 20k would not fit the young generation).
   */
  redis: { warmup: quick ? 2_000 : 10_000, n: quick ? 5_000 : 40_000, allocN: quick ? 2_000 : 4_000 },
  /** `--instructions`: requests counted under valgrind, and the uninstrumented runs that give the rate. */
  http: {
    warmup: Number(args.warmup ?? (quick ? 1_000 : 10_000)),
    n: Number(args.n ?? (quick ? 500 : 1_500)),
    slice: Number(args.slice ?? (quick ? 250 : 500)),
    rateWarmup: quick ? 2_000 : 10_000,
    rateN: quick ? 5_000 : 20_000,
    rateRuns: quick ? 1 : 5,
    jobs: Number(args.jobs ?? 2),
    /** The metrics code alone: timed store calls, and decisions (decide-count.mjs's counts, scaled). */
    storeCall: { warmup: quick ? 10_000 : 100_000, n: quick ? 5_000 : 50_000 },
    decideScale: quick ? 0.1 : 0.3,
    /** `--only koa/redis,fastify`: count only the HTTP configurations whose `framework/store/sink` holds one of these. */
    only: typeof args.only === 'string' ? args.only.split(',') : undefined,
  },
}
const SINKS = ['off', 'prometheus', 'opentelemetry', ...(CONFIG.baseline ? ['baseline'] : [])]
/** Scenarios: one policy and three on the MemoryStore, one on a RedisStore (no baseline: it needs today's core). */
const SCENARIOS = ['1', '3', 'redis']
const sinksOf = (scenario) => (scenario === 'redis' ? SINKS.filter((s) => s !== 'baseline') : SINKS)

async function child() {
  if (args.child === 'instruments') {
    sendResult(await instrumentCosts(CONFIG.instrumentCalls))
    return
  }
  const redis = args.policies === 'redis'
  const decide = await limiterOf({
    sink: args.sink,
    policies: redis ? 'redis' : Number(args.policies),
    baseline: args.baseline,
    redis: redis
      ? { host: args['redis-host'], port: Number(args['redis-port']), prefix: args.prefix }
      : undefined,
  })
  if (args.child === 'cpu') {
    sendResult({ cpuUs: await cpuPerDecision(decide, redis ? CONFIG.redis : CONFIG.cpu) })
  } else {
    sendResult({
      bytes: await bytesPerDecision(
        decide,
        redis ? { ...CONFIG.alloc, warmup: CONFIG.redis.warmup, n: CONFIG.redis.allocN } : CONFIG.alloc,
      ),
    })
  }
}

const log = (line) => process.stderr.write(`[metrics] ${line}\n`)

let redisServer
let spawned = 0

function spawn(mode, sink, policies) {
  const childArgs = ['--child', mode, '--sink', sink, '--policies', String(policies)]
  if (CONFIG.baseline) childArgs.push('--baseline', CONFIG.baseline)
  if (policies === 'redis') {
    // Keys of their own per child: every child starts from a fresh bucket, as on the MemoryStore.
    const prefix = `fg-bench-metrics:${process.pid}:${spawned++}:`
    childArgs.push(
      '--redis-host',
      redisServer.host,
      '--redis-port',
      String(redisServer.port),
      '--prefix',
      prefix,
    )
  }
  if (quick) childArgs.push('--quick')
  const flags =
    mode === 'alloc'
      ? [
          '--expose-gc',
          `--min-semi-space-size=${CONFIG.semiSpaceMb}`,
          `--max-semi-space-size=${CONFIG.semiSpaceMb}`,
        ]
      : []
  return runNode(SELF, childArgs, { flags, timeoutMs: 120_000 })
}

async function measure() {
  const meta = { ...machine(), command: commandLine(), quick, config: CONFIG, builds: builds() }
  redisServer = await startPrivateRedis()
  if (!redisServer)
    throw new Error(
      'no redis-server could be started: the RedisStore scenario needs one (apt-get install redis-server)',
    )
  try {
    const cpu = {}
    for (const policies of SCENARIOS) {
      const sinks = sinksOf(policies)
      cpu[policies] = Object.fromEntries(sinks.map((s) => [s, []]))
      for (let r = 0; r < CONFIG.rounds; r++) {
        const order = sinks.map((_, i) => sinks[(i + r) % sinks.length])
        for (const sink of order) cpu[policies][sink].push((await spawn('cpu', sink, policies)).cpuUs)
        log(
          `cpu ${policies}, round ${r + 1}/${CONFIG.rounds}: ` +
            sinks.map((s) => `${s} ${cpu[policies][s][r].toFixed(3)} µs`).join(', '),
        )
      }
    }
    const bytes = {}
    for (const policies of SCENARIOS) {
      const sinks = sinksOf(policies)
      const runs = Object.fromEntries(sinks.map((s) => [s, []]))
      for (let r = 0; r < CONFIG.allocRuns; r++) {
        for (const sink of sinks) runs[sink].push((await spawn('alloc', sink, policies)).bytes)
      }
      bytes[policies] = Object.fromEntries(sinks.map((s) => [s, quartiles(runs[s])]))
      log(
        `bytes ${policies}: ${sinks.map((s) => `${s} ${runs[s].map((b) => b.toFixed(1)).join('/')}`).join(', ')}`,
      )
    }
    return { meta, cpu: summarize(cpu), bytes, instruments: await measureInstruments() }
  } finally {
    await redisServer.stop()
  }
}

async function measureInstruments() {
  const instrumentRuns = []
  for (let r = 0; r < CONFIG.instrumentRuns; r++) instrumentRuns.push(await spawn('instruments', 'off', 1))
  const instruments = Object.fromEntries(
    Object.keys(instrumentRuns[0]).map((name) => [name, quartiles(instrumentRuns.map((run) => run[name]))]),
  )
  log(
    `instruments: ${Object.entries(instruments)
      .map(([k, v]) => `${k} ${v.median.toFixed(0)} ns`)
      .join(', ')}`,
  )
  return instruments
}

/** Per scenario and sink: the CPU µs per decision, and its extra over metrics off paired within a round. */
function summarize(cpu) {
  const out = {}
  for (const [policies, bySink] of Object.entries(cpu)) {
    out[policies] = {}
    for (const [sink, values] of Object.entries(bySink)) {
      out[policies][sink] = {
        rounds: values,
        cpuUs: quartiles(values),
        extraUs: quartiles(values.map((v, i) => v - bySink.off[i])),
      }
    }
  }
  return out
}

const builds = () => [buildOf('@floodgate/core'), buildOf('@floodgate/metrics')]

if (args.child) {
  await child()
  process.exit(0) // a RedisStore's client would keep the child alive
} else if (args.render) {
  const stored = readResults('metrics')
  if (!stored?.json) throw new Error('no bench/results/metrics.json to render: run the suite first')
  writeResults('metrics', render(stored.json), stored.json)
} else if (args.instructions) {
  const stored = readResults('metrics')?.json
  if (!stored)
    throw new Error('no bench/results/metrics.json to add the counts to: run the timed suite first')
  const resume = typeof args.resume === 'string' ? args.resume : undefined
  const http = await measureHttpInstructions(CONFIG.http, { log, builds: builds(), resume })
  const files = writeResults('metrics', render({ ...stored, http }), { ...stored, http })
  log(`wrote ${files.md} and ${files.json}`)
} else {
  const data = await measure()
  data.meta.loadavgEnd = machine().loadavg
  // The instruction counts take long: a timed run keeps those of the last `--instructions` run.
  const http = readResults('metrics')?.json?.http
  const files = writeResults('metrics', render({ ...data, ...(http ? { http } : {}) }), {
    ...data,
    ...(http ? { http } : {}),
  })
  log(`wrote ${files.md} and ${files.json}`)
}
