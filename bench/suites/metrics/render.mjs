/**
 * bench/results/metrics.md from the suite's JSON: the goal over HTTP (instruction counts, render-http.mjs), CPU
 * per decision of core's handler (MemoryStore, one and three policies; RedisStore), heap bytes per decision, the
 * cost of one call on each instrument.
 */
import { fmtCount, fmtRatio, mdTable, right } from '../../lib/format.mjs'
import { renderHttp, SINK_LABELS } from './render-http.mjs'

export const scenarioLabel = (scenario) =>
  scenario === '1' || scenario === 1
    ? 'one policy (short form)'
    : scenario === 'redis'
      ? 'one policy on a RedisStore (store-duration histogram)'
      : 'three policies (limits: ip, minute, global)'

const us = (x) => (Number.isFinite(x) ? `${x.toFixed(3)} µs` : 'n/a')
const signed = (x) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(3)} µs` : 'n/a')

function cpuSection({ meta, cpu }) {
  const scenarios = Object.keys(cpu)
  const rows = scenarios.flatMap((p) =>
    Object.keys(cpu[p]).map((s) => {
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
  const worstOf = (keys) =>
    Math.max(
      ...keys.flatMap((p) =>
        ['prometheus', 'opentelemetry'].map((s) => cpu[p][s]?.extraUs.median ?? -Infinity),
      ),
    )
  const memory = scenarios.filter((p) => p !== 'redis')
  const redis = meta.config.redis
  return [
    '### CPU per decision of the handler (timed)',
    '',
    `Core's createRateLimitHandler, one client, a quota nobody reaches, \`await handler.handle(info)\` in a loop: ` +
      `on the MemoryStore ${fmtCount(meta.config.cpu.n)} decisions per child after ${fmtCount(meta.config.cpu.warmup)} of warm-up` +
      (cpu.redis
        ? `, on a RedisStore (a redis-server of the suite's own; the Node process's CPU only) ${fmtCount(redis.n)} after ${fmtCount(redis.warmup)}`
        : '') +
      `; each configuration in a fresh process, ${meta.config.rounds} rounds in rotating order. "Extra" is the ` +
      'configuration minus metrics off, paired within a round (median of rounds); 1.0x = metrics off in the same ' +
      'scenario. Timed on a shared machine, these resolve a few tenths of a µs on the MemoryStore and tens of µs on ' +
      'the RedisStore (its own rounds spread that much); the instruction counts above resolve less than 0.1 µs.',
    '',
    `Worst extra of either sink: ${signed(worstOf(memory))} per decision on the MemoryStore` +
      (cpu.redis ? `, ${signed(worstOf(['redis']))} on the RedisStore.` : '.'),
    '',
    mdTable(
      ['scenario', 'metrics', right('CPU per decision'), right('quartiles'), right('x off'), right('extra')],
      rows,
    ),
  ]
}

function bytesSection({ meta, bytes }) {
  const scenarios = Object.keys(bytes)
  const fmtB = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a (a GC ran in every try)')
  const rows = scenarios.flatMap((p) =>
    Object.keys(bytes[p]).map((s) => {
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
  const withBaseline = scenarios.filter((p) => bytes[p].baseline)
  const offVsBaseline = withBaseline.length
    ? withBaseline
        .map((p) => {
          const d = bytes[p].off.median - bytes[p].baseline.median
          return `${d >= 0 ? '+' : ''}${d.toFixed(1)} (${p === '1' ? 'one policy' : 'three'})`
        })
        .join(' and ')
    : undefined
  const memory = scenarios.filter((p) => p !== 'redis')
  const spread = Math.max(...memory.flatMap((p) => Object.values(bytes[p]).map((q) => q.max - q.min)))
  // A per-request allocation is at least one object (16 bytes or more); less than that, or than the spread, is noise.
  const offWithinSpread = withBaseline.every(
    (p) => Math.abs(bytes[p].off.median - bytes[p].baseline.median) <= Math.max(spread, 16),
  )
  return [
    '### Heap allocated per decision',
    '',
    `Bytes of heap per decision over ${fmtCount(meta.config.alloc.n)} decisions (${fmtCount(meta.config.redis?.allocN ?? meta.config.alloc.n)} on the RedisStore) with no GC in between (per process the ` +
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
      'bound once, so no label object is built per request. On the RedisStore, timing the store call adds its own.',
    '',
    mdTable(['scenario', 'metrics', right('bytes per decision'), right('range'), right('vs off')], rows),
  ]
}

function instrumentsSection({ meta, instruments }) {
  return [
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
  ]
}

/** The whole section. */
export function render(data) {
  const { meta } = data
  return [
    '## Metrics',
    '',
    `Measured ${meta.date.slice(0, 10)} on ${meta.cpu} (${meta.cores} cores), Node ${meta.node}, load average ` +
      `${meta.loadavg.join(' / ')} at the start, ${meta.loadavgEnd.join(' / ')} at the end${meta.quick ? ' (QUICK run: numbers not representative)' : ''}.`,
    '',
    ...renderHttp(data.http),
    '',
    ...cpuSection(data),
    '',
    ...bytesSection(data),
    '',
    ...instrumentsSection(data),
    '',
  ].join('\n')
}
