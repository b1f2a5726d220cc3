// @bench-title Simulator
// @bench-flags
//
// How fast @floodgate/simulator runs the real algorithms over a million requests, and what it costs over the
// algorithm alone, side by side in one run:
//   - bare: a loop calling the algorithm's own `consume` on one Float64Array per key (the floor);
//   - simulate: `simulate()` over the same arrivals (timeline, per-request decisions, summary with the most
//     admitted in a rolling window, the watched key's state decoded per tick);
//   - simulate + traffic: the same, generating the Poisson arrivals too (what a user's call costs).
// One key, and 1,000 keys (each with its own state). Every algorithm runs in a fresh child process; the
// three modes interleave within it, 5 rounds each, the median kept. Writes bench/results/simulator.{md,json}.
//
//   node bench/suites/simulator.mjs            the full suite (about a minute on 2 idle cores)
//   node bench/suites/simulator.mjs --quick    a smoke run (100k requests, 1 round; not representative)

import { fileURLToPath } from 'node:url'
import { parseArgs, runNode, sendResult } from '../lib/child.mjs'
import { buildOf, commandLine, machine } from '../lib/env.mjs'
import { fmtCount, fmtRatio, fmtSpread, mdTable } from '../lib/format.mjs'
import { writeResults } from '../lib/results.mjs'
import { summarize } from '../lib/stats.mjs'

const SELF = fileURLToPath(import.meta.url)
const args = parseArgs()
const quick = Boolean(args.quick)
const CONFIG = {
  requests: quick ? 100_000 : 1_000_000,
  rounds: Number(args.rounds ?? (quick ? 1 : 5)),
  warmups: quick ? 1 : 3,
  /** Poisson at 1,000 a second (per key): near each algorithm's limit, so they admit and refuse. */
  ratePerSecond: 1000,
  tickMs: 1000,
}
const GOAL_MS = 1000 // "a million simulated requests in well under a second"

/**
 * Each algorithm at a limit the traffic keeps reaching: ~1,000 a second offered, 800 a second allowed (the
 * windows as 80 per 100 ms, so that the sliding log's state is 81 numbers per key, not 801).
 */
const ALGORITHMS = {
  fixedWindow: (core) => core.fixedWindow({ limit: 80, window: '100ms' }),
  slidingWindowCounter: (core) => core.slidingWindowCounter({ limit: 80, window: '100ms' }),
  slidingWindowLog: (core) => core.slidingWindowLog({ limit: 80, window: '100ms' }),
  tokenBucket: (core) => core.tokenBucket({ capacity: 100, refillRate: 800, interval: '1s' }),
  'leakyBucket (shape)': (core) =>
    core.leakyBucket({ capacity: 100, leakRate: 800, interval: '1s', mode: 'shape' }),
  gcra: (core) => core.gcra({ rate: 800, period: '1s', burst: 100 }),
}
const CASES = { one: 1, many: 1000 }

// ---------------------------------------------------------------------------------------------------------
// Child: one algorithm, one case, every mode interleaved over the rounds.

async function child(name, keyCount) {
  const core = await import('@floodgate/core')
  const { poisson, simulate } = await import('@floodgate/simulator')
  const algorithm = ALGORITHMS[name](core)
  const durationMs = Math.round((CONFIG.requests / CONFIG.ratePerSecond / keyCount) * 1000)
  const traffic = poisson({ rate: CONFIG.ratePerSecond, per: '1s', seed: 7, keys: keyCount })
  const arrivals = traffic.arrivals(durationMs)
  const fixed = { label: traffic.label, arrivals: () => arrivals }
  const options = { algorithm, duration: durationMs, tick: CONFIG.tickMs }

  const modes = {
    bare() {
      const { at, keyIndex } = arrivals
      const states = Array.from({ length: arrivals.keys.length }, () => new Float64Array(algorithm.stateSize))
      let admitted = 0
      for (let i = 0; i < at.length; i++) {
        if (algorithm.consume(states[keyIndex ? keyIndex[i] : 0], 0, at[i], 1).allowed) admitted++
      }
      return admitted
    },
    simulate: () => simulate({ ...options, traffic: fixed }).summary.admitted,
    'simulate + traffic': () => simulate({ ...options, traffic }).summary.admitted,
  }
  const ms = Object.fromEntries(Object.keys(modes).map((m) => [m, []]))
  const cpuMs = Object.fromEntries(Object.keys(modes).map((m) => [m, []]))
  const admitted = {}
  // warm up every path until the JIT has settled (it takes a few runs of a million)
  for (let w = 0; w < CONFIG.warmups; w++) for (const run of Object.values(modes)) run()
  for (let round = 0; round < CONFIG.rounds; round++) {
    for (const [mode, run] of Object.entries(modes)) {
      const cpu = process.cpuUsage()
      const start = process.hrtime.bigint()
      admitted[mode] = run()
      ms[mode].push(Number(process.hrtime.bigint() - start) / 1e6)
      const used = process.cpuUsage(cpu)
      cpuMs[mode].push((used.user + used.system) / 1000)
    }
  }
  sendResult({ requests: arrivals.at.length, durationMs, ms, cpuMs, admitted })
}

// ---------------------------------------------------------------------------------------------------------
// Parent: run the children, write the tables.

async function main() {
  const started = Date.now()
  const meta = {
    ...machine(),
    command: commandLine(),
    build: [buildOf('@floodgate/core'), buildOf('@floodgate/simulator')],
  }
  const results = {}
  for (const name of Object.keys(ALGORITHMS)) {
    for (const [caseName, keyCount] of Object.entries(CASES)) {
      console.error(`simulator: ${name}, ${keyCount} key(s)`)
      const r = await runNode(
        SELF,
        ['--child', name, '--keys', String(keyCount), ...(quick ? ['--quick'] : [])],
        {
          timeoutMs: 120_000,
        },
      )
      results[`${name}/${caseName}`] = { name, keyCount, ...r, stats: mapStats(r.ms), cpu: mapStats(r.cpuMs) }
    }
  }
  const seconds = Math.round((Date.now() - started) / 1000)
  const endLoad = machine().loadavg
  writeResults('simulator', markdown(results, meta, endLoad, seconds), {
    meta: { ...meta, endLoad, seconds },
    config: CONFIG,
    results,
  })
  console.error(`simulator: done in ${seconds} s`)
}

const mapStats = (ms) =>
  Object.fromEntries(Object.entries(ms).map(([mode, values]) => [mode, summarize(values)]))
/** ms per million requests, from a mode's median round: wall clock (`stats`) or CPU time (`cpu`). */
const perMillion = (r, mode, of = 'stats') => (r[of][mode].median * 1e6) / r.requests

function markdown(results, meta, endLoad, seconds) {
  const rows = Object.values(results)
  const full = 'simulate + traffic'
  const worst = (of) => rows.reduce((w, r) => (perMillion(r, full, of) > perMillion(w, full, of) ? r : w))
  const worstCpu = worst('cpu')
  const worstWall = worst('stats')
  const ms = (r, mode, of) => `${Math.round(perMillion(r, mode, of))} ms`
  const table = mdTable(
    [
      'algorithm',
      { title: 'keys', align: 'right' },
      { title: 'bare consume loop', align: 'right' },
      { title: 'simulate', align: 'right' },
      { title: '±', align: 'right' },
      { title: 'x bare', align: 'right' },
      { title: 'simulate + traffic', align: 'right' },
      { title: 'x bare', align: 'right' },
      { title: 'simulate + traffic, wall clock', align: 'right' },
    ],
    rows.map((r) => [
      r.name,
      fmtCount(r.keyCount),
      ms(r, 'bare', 'cpu'),
      ms(r, 'simulate', 'cpu'),
      fmtSpread(r.cpu.simulate.spread),
      fmtRatio(r.cpu.simulate.median / r.cpu.bare.median),
      ms(r, full, 'cpu'),
      fmtRatio(r.cpu[full].median / r.cpu.bare.median),
      ms(r, full, 'stats'),
    ]),
  )
  const load = (l) => l.join(' / ')
  const build = meta.build
    .map((b) => `${b.package} ${b.version} (\`${b.entry}\` sha256 ${b.sha256}, built ${b.builtAt})`)
    .join(', ')
  const met = perMillion(worstCpu, full, 'cpu') < GOAL_MS
  return [
    '## Simulator',
    '',
    `Measured ${meta.date} on Node ${meta.node} (V8 ${meta.v8}), ${meta.cpu} x ${meta.cores}, load average ${load(meta.loadavg)} at the start and ${load(endLoad)} at the end (1 / 5 / 15 min; other work was running on the machine). Suite: \`${meta.command}\` (${seconds} s). Measured: ${build}, commit ${meta.build[0].commit}.`,
    '',
    '### Goal',
    '',
    mdTable(
      ['goal', 'measured', ''],
      [
        [
          'a million simulated requests in well under a second (simulate + traffic, every algorithm, CPU time)',
          `at most ${Math.round(perMillion(worstCpu, full, 'cpu'))} ms of CPU per million (${worstCpu.name}, ${fmtCount(worstCpu.keyCount)} keys); wall clock at most ${Math.round(perMillion(worstWall, full))} ms (${worstWall.name}, ${fmtCount(worstWall.keyCount)} keys) with the load above`,
          met ? 'met' : 'NOT met',
        ],
      ],
    ),
    '',
    '### Time per million requests',
    '',
    `Poisson traffic at ${fmtCount(CONFIG.ratePerSecond)} requests a second per key against 800 a second allowed (windows: 80 per 100 ms; so every algorithm admits and refuses), ${fmtCount(rows[0].requests)} requests per run, ticks of ${CONFIG.tickMs} ms. Each cell: the median of ${CONFIG.rounds} rounds after ${CONFIG.warmups} untimed ones, the three modes interleaved in one process per algorithm and case. Times are CPU time (user + system) of the process, which is what a run costs whatever else the machine does (on an idle machine the wall clock is the same); the last column is the wall clock. ± is half the range between the slowest and fastest round of \`simulate\`.`,
    '',
    '**1.0x = the bare consume loop** of the same algorithm: `algorithm.consume(state, 0, now, 1)` over the same arrivals, one Float64Array per key, nothing recorded. `simulate` adds the per-request decisions, the timeline (counts, the rolling-window column, the decoded state per tick) and the summary; `simulate + traffic` adds generating the Poisson arrivals.',
    '',
    table,
  ].join('\n')
}

if (args.child) await child(args.child, Number(args.keys))
else await main()
