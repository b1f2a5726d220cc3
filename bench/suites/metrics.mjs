// @bench-title Metrics
// @bench-flags
//
// What metrics cost a limiter, in one run: core's createRateLimitHandler on its MemoryStore deciding one
// client's requests (one policy, and three layered), with metrics off, through prom-client
// (`prometheus({ register })`) and through the OpenTelemetry SDK (`openTelemetry({ meter })`):
//   - CPU time per decision (user + system), each configuration in a fresh child process, rounds interleaved,
//     the extra cost of each sink paired with metrics off within a round;
//   - heap bytes allocated per decision, in a child with a 128 MB young generation so that no GC runs while it
//     is measured (a try during which one ran is thrown away): metrics off must allocate what a core without
//     the metrics hook allocates (`--baseline <core dist/index.js>` adds that row).
// The HTTP suite (bench/suites/http.mjs) measures the same over real HTTP, where the noise is larger than the
// cost. Writes bench/results/metrics.md and bench/results/metrics.json. Imports the built packages.
//
//   node bench/suites/metrics.mjs                 the full suite (about a minute on 2 cores)
//   node bench/suites/metrics.mjs --quick         a smoke run (numbers not representative)
//   node bench/suites/metrics.mjs --baseline /path/to/core/dist/index.js
//   node bench/suites/metrics.mjs --render        only rewrite bench/results/metrics.md from metrics.json

import { fileURLToPath } from 'node:url'
import { parseArgs, runNode, sendResult } from '../lib/child.mjs'
import { buildOf, commandLine, machine } from '../lib/env.mjs'
import { fmtCount, fmtRatio, mdTable, right } from '../lib/format.mjs'
import { readResults, writeResults } from '../lib/results.mjs'
import { quartiles } from '../lib/stats.mjs'
import { bytesPerDecision, cpuPerDecision, limiterOf } from './metrics/decide.mjs'
import { instrumentCosts } from './metrics/instruments.mjs'

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
}
const SINKS = ['off', 'prometheus', 'opentelemetry', ...(CONFIG.baseline ? ['baseline'] : [])]
const SINK_LABELS = {
  off: 'metrics off',
  prometheus: 'prometheus({ register })',
  opentelemetry: 'openTelemetry({ meter })',
  baseline: 'core without the metrics hook',
}
const SCENARIOS = [1, 3]
const scenarioLabel = (policies) =>
  policies === 1 ? 'one policy (short form)' : 'three policies (limits: ip, minute, global)'

async function child() {
  if (args.child === 'instruments') {
    sendResult(await instrumentCosts(CONFIG.instrumentCalls))
    return
  }
  const decide = await limiterOf({
    sink: args.sink,
    policies: Number(args.policies),
    baseline: args.baseline,
  })
  if (args.child === 'cpu') sendResult({ cpuUs: await cpuPerDecision(decide, CONFIG.cpu) })
  else sendResult({ bytes: await bytesPerDecision(decide, CONFIG.alloc) })
}

const log = (line) => process.stderr.write(`[metrics] ${line}\n`)

function spawn(mode, sink, policies) {
  const childArgs = ['--child', mode, '--sink', sink, '--policies', String(policies)]
  if (CONFIG.baseline) childArgs.push('--baseline', CONFIG.baseline)
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
  const cpu = {}
  for (const policies of SCENARIOS) {
    cpu[policies] = Object.fromEntries(SINKS.map((s) => [s, []]))
    for (let r = 0; r < CONFIG.rounds; r++) {
      const order = SINKS.map((_, i) => SINKS[(i + r) % SINKS.length])
      for (const sink of order) cpu[policies][sink].push((await spawn('cpu', sink, policies)).cpuUs)
      log(
        `cpu ${policies} ${policies === 1 ? 'policy' : 'policies'}, round ${r + 1}/${CONFIG.rounds}: ` +
          SINKS.map((s) => `${s} ${cpu[policies][s][r].toFixed(3)} µs`).join(', '),
      )
    }
  }
  const bytes = {}
  for (const policies of SCENARIOS) {
    const runs = Object.fromEntries(SINKS.map((s) => [s, []]))
    for (let r = 0; r < CONFIG.allocRuns; r++) {
      for (const sink of SINKS) runs[sink].push((await spawn('alloc', sink, policies)).bytes)
    }
    bytes[policies] = Object.fromEntries(SINKS.map((s) => [s, quartiles(runs[s])]))
    log(
      `bytes ${policies}: ${SINKS.map((s) => `${s} ${runs[s].map((b) => b.toFixed(1)).join('/')}`).join(', ')}`,
    )
  }
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
  meta.loadavgEnd = machine().loadavg
  return { meta, cpu: summarize(cpu), bytes, instruments }
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
const us = (x) => (Number.isFinite(x) ? `${x.toFixed(3)} µs` : 'n/a')
const signed = (x) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(3)} µs` : 'n/a')

function render({ meta, cpu, bytes, instruments }) {
  const sinks = Object.keys(cpu[SCENARIOS[0]])
  const cpuRows = SCENARIOS.flatMap((p) =>
    sinks.map((s) => {
      const cell = cpu[p][s]
      return [
        scenarioLabel(p),
        SINK_LABELS[s],
        us(cell.cpuUs.median),
        `${us(cell.cpuUs.q1)} – ${us(cell.cpuUs.q3)}`,
        fmtRatio(cell.cpuUs.median / cpu[p].off.cpuUs.median),
        s === 'off' ? '—' : signed(cell.extraUs.median),
      ]
    }),
  )
  const fmtB = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a (a GC ran in every try)')
  const byteRows = SCENARIOS.flatMap((p) =>
    sinks.map((s) => {
      const q = bytes[p][s]
      const vsOff = q.median - bytes[p].off.median
      return [
        scenarioLabel(p),
        SINK_LABELS[s],
        fmtB(q.median),
        `${fmtB(q.min)} – ${fmtB(q.max)}`,
        s === 'off' ? '—' : `${vsOff >= 0 ? '+' : ''}${vsOff.toFixed(1)}`,
      ]
    }),
  )
  const worst = Math.max(
    ...SCENARIOS.flatMap((p) => ['prometheus', 'opentelemetry'].map((s) => cpu[p][s].extraUs.median)),
  )
  const offVsBaseline = meta.config.baseline
    ? SCENARIOS.map((p) => {
        const d = bytes[p].off.median - bytes[p].baseline.median
        return `${d >= 0 ? '+' : ''}${d.toFixed(1)} (${p === 1 ? 'one policy' : 'three'})`
      }).join(' and ')
    : undefined
  const spread = Math.max(...SCENARIOS.flatMap((p) => sinks.map((s) => bytes[p][s].max - bytes[p][s].min)))
  // A per-request allocation is at least one object (16 bytes or more); less than that, or than the spread, is noise.
  const offWithinSpread = SCENARIOS.every(
    (p) =>
      !bytes[p].baseline || Math.abs(bytes[p].off.median - bytes[p].baseline.median) <= Math.max(spread, 16),
  )
  return [
    '## Metrics',
    '',
    `Measured ${meta.date.slice(0, 10)} on ${meta.cpu} (${meta.cores} cores), Node ${meta.node}, load average ` +
      `${meta.loadavg.join(' / ')} at the start, ${meta.loadavgEnd.join(' / ')} at the end${meta.quick ? ' (QUICK run: numbers not representative)' : ''}.`,
    '',
    `Core's createRateLimitHandler on its MemoryStore, one client, a quota nobody reaches, \`await handler.handle(info)\` ` +
      `in a loop: ${fmtCount(meta.config.cpu.n)} decisions per child after ${fmtCount(meta.config.cpu.warmup)} of warm-up, ` +
      `each configuration in a fresh process, ${meta.config.rounds} rounds in rotating order. "Extra" is the ` +
      'configuration minus metrics off, paired within a round (median of rounds); 1.0x = metrics off in the same scenario.',
    '',
    '### Goal: metrics on cost at most 1 µs of CPU per decision',
    '',
    `Worst extra of either sink: ${signed(worst)} per decision: ${worst <= 1 ? 'met' : 'NOT met'}.`,
    '',
    mdTable(
      ['scenario', 'metrics', right('CPU per decision'), right('quartiles'), right('x off'), right('extra')],
      cpuRows,
    ),
    '',
    '### Heap allocated per decision',
    '',
    `Bytes of heap per decision over ${fmtCount(meta.config.alloc.n)} decisions with no GC in between (per process the ` +
      `median of ${meta.config.alloc.windows} windows; the median of ${meta.config.allocRuns} processes; young generation ` +
      `${meta.config.semiSpaceMb} MB; \`--expose-gc\`). Off, the metrics hook is one \`if\`: ` +
      (offVsBaseline === undefined
        ? 'run with `--baseline <core dist/index.js>` to compare with a core without it.'
        : `${offVsBaseline} bytes per decision against a core without it (${meta.config.baseline}), where one ` +
          `build varies by up to ${spread.toFixed(1)} bytes from one process to the next (the range column): ` +
          (offWithinSpread
            ? 'nothing allocated per request when off.'
            : 'MORE than that spread: metrics off may allocate per request; look before trusting it.')) +
      ' On, the recorder is one `.then` on the outcome (its promise and reaction); counters are plain numbers ' +
      'bound once, so no label object is built per request.',
    '',
    mdTable(['scenario', 'metrics', right('bytes per decision'), right('range'), right('vs off')], byteRows),
    '',
    '### One call on an instrument',
    '',
    `ns per call, ${fmtCount(meta.config.instrumentCalls)} calls each, median of ${meta.config.instrumentRuns} runs in a child of ` +
      "their own: the sinks' counters and prometheus()'s histograms add to plain numbers bound to their labels; " +
      "openTelemetry()'s histograms call the SDK. prom-client's and the SDK's own instruments hash the labels on " +
      'every call. 1.0x = prometheus() counter add.',
    '',
    mdTable(
      ['instrument', right('ns per call'), right('quartiles'), right('x counter add')],
      Object.entries(instruments).map(([name, q]) => [
        name,
        q.median.toFixed(0),
        `${q.q1.toFixed(0)} – ${q.q3.toFixed(0)}`,
        fmtRatio(q.median / instruments['prometheus() counter add'].median),
      ]),
    ),
    '',
  ].join('\n')
}

if (args.child) {
  await child()
} else if (args.render) {
  const stored = readResults('metrics')
  if (!stored?.json) throw new Error('no bench/results/metrics.json to render: run the suite first')
  writeResults('metrics', render(stored.json), stored.json)
} else {
  const data = await measure()
  const files = writeResults('metrics', render(data), data)
  log(`wrote ${files.md} and ${files.json}`)
}
