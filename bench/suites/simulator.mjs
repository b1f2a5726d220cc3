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
  /** Poisson at 1,000 a second (per key): near each algorithm's limit, so they admit and refuse. */
  ratePerSecond: 1000,
  tickMs: 1000,
}
const GOAL_MS = 1000 // "a million simulated requests in well under a second"

/** Each algorithm at a limit the traffic keeps reaching: ~1,000 a second offered, 800 a second allowed. */
const ALGORITHMS = {
  fixedWindow: (core) => core.fixedWindow({ limit: 800, window: '1s' }),
  slidingWindowCounter: (core) => core.slidingWindowCounter({ limit: 800, window: '1s' }),
  slidingWindowLog: (core) => core.slidingWindowLog({ limit: 800, window: '1s' }),
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
  const admitted = {}
  for (const run of Object.values(modes)) run() // warm up every path
  for (let round = 0; round < CONFIG.rounds; round++) {
    for (const [mode, run] of Object.entries(modes)) {
      const start = process.hrtime.bigint()
      admitted[mode] = run()
      ms[mode].push(Number(process.hrtime.bigint() - start) / 1e6)
    }
  }
  sendResult({ requests: arrivals.at.length, durationMs, ms, admitted })
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
      results[`${name}/${caseName}`] = { name, keyCount, ...r, stats: mapStats(r.ms) }
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
const perMillion = (r, mode) => (r.stats[mode].median * 1e6) / r.requests

function markdown(results, meta, endLoad, seconds) {
  const rows = Object.values(results)
  const worst = Math.max(...rows.map((r) => perMillion(r, 'simulate + traffic')))
  const worstRow = rows.find((r) => perMillion(r, 'simulate + traffic') === worst)
  const cell = (r, mode) => `${Math.round(perMillion(r, mode))} ms`
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
      { title: 'simulated requests/s', align: 'right' },
    ],
    rows.map((r) => [
      r.name,
      fmtCount(r.keyCount),
      cell(r, 'bare'),
      cell(r, 'simulate'),
      fmtSpread(r.stats.simulate.spread),
      fmtRatio(r.stats.simulate.median / r.stats.bare.median),
      cell(r, 'simulate + traffic'),
      fmtRatio(r.stats['simulate + traffic'].median / r.stats.bare.median),
      `${fmtCount((r.requests / r.stats['simulate + traffic'].median) * 1000)}/s`,
    ]),
  )
  const load = (l) => l.join(' / ')
  const build = meta.build
    .map((b) => `${b.package} ${b.version} (\`${b.entry}\` sha256 ${b.sha256}, built ${b.builtAt})`)
    .join(', ')
  return [
    '## Simulator',
    '',
    `Measured ${meta.date} on Node ${meta.node} (V8 ${meta.v8}), ${meta.cpu} x ${meta.cores}, load average ${load(meta.loadavg)} at the start and ${load(endLoad)} at the end. Suite: \`${meta.command}\` (${seconds} s). Measured: ${build}, commit ${meta.build[0].commit}.`,
    '',
    '### Goal',
    '',
    mdTable(
      ['goal', 'measured', ''],
      [
        [
          'a million simulated requests in well under a second (simulate + traffic, every algorithm)',
          `at most ${Math.round(worst)} ms per million (${worstRow.name}, ${fmtCount(worstRow.keyCount)} keys)`,
          worst < GOAL_MS ? 'met' : 'NOT met',
        ],
      ],
    ),
    '',
    '### Time per million requests',
    '',
    `Poisson traffic at ${fmtCount(CONFIG.ratePerSecond)} requests a second per key against a limit of 800 a second (so every algorithm admits and refuses), ${fmtCount(rows[0].requests)} requests per run, ticks of ${CONFIG.tickMs} ms. Each cell: the median of ${CONFIG.rounds} rounds, the three modes interleaved in one process per algorithm and case; ± is half the range between the slowest and fastest round of \`simulate\`.`,
    '',
    '**1.0x = the bare consume loop** of the same algorithm: `algorithm.consume(state, 0, now, 1)` over the same arrivals, one Float64Array per key, nothing recorded. `simulate` adds the per-request decisions, the timeline (counts, the rolling-window column, the decoded state per tick) and the summary; `simulate + traffic` adds generating the Poisson arrivals.',
    '',
    table,
  ].join('\n')
}

if (args.child) await child(args.child, Number(args.keys))
else await main()
