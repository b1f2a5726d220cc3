/**
 * The goals the HTTP suite checks, each as a row `[goal, measured, verdict]`: Floodgate on its memory store
 * at least 0.90x bare req/s; on Redis above the peer on Redis (Fastify: at least 0.80x bare) and costing Redis
 * no more CPU per request than the peer; its refusal path no slower than its pass path; metrics on (prom-client,
 * OpenTelemetry) costing at most 1 µs of server CPU per request more than off; exactly the limit
 * through a pipeline. Pure: a function of the results.
 */
import { fmtRatio } from '../../lib/format.mjs'
import { FRAMEWORKS } from './apps.mjs'
import { configurationOf, FRAMEWORK_IDS, labelOf, METRICS_PAIRS, REDIS_PAIR } from './config.mjs'
import { isExact, passedOf } from './pipelined-check.mjs'
import { medianOf, ratiosToBare } from './summarize-throughput.mjs'

/** The verdict on req/s (the goal's measure) and on CPU per request (steadier on a busy machine). */
function verdict(bySecond, byCpu) {
  if (bySecond && byCpu) return 'met'
  if (bySecond) return 'met by req/s, NOT by CPU'
  if (byCpu) return 'met by CPU only, NOT by req/s'
  return 'NOT met'
}

const fmtBoth = (x) => `${fmtRatio(x.perSecond)} of bare req/s (CPU per request: ${fmtRatio(x.cpu)})`

function memoryGoal(throughput, fw) {
  const x = ratiosToBare(throughput, fw, 'fg-memory')
  return [
    `${FRAMEWORKS[fw].label}, Floodgate memory >= 0.90x bare`,
    fmtBoth(x),
    verdict(x.perSecond >= 0.9, x.cpu >= 0.9),
  ]
}

function redisGoal(throughput, fw) {
  const { label, peerRedis } = FRAMEWORKS[fw]
  if (!throughput[fw]['fg-redis']) return [`${label}, Floodgate Redis`, 'not measured (no Redis)', 'n/a']
  const x = ratiosToBare(throughput, fw, 'fg-redis')
  const p = ratiosToBare(throughput, fw, 'peer-redis')
  if (fw === 'fastify') {
    return [
      `${label}, Floodgate Redis >= 0.80x bare`,
      `${fmtBoth(x)}; ${peerRedis}: ${fmtRatio(p.perSecond)} (CPU ${fmtRatio(p.cpu)})`,
      verdict(x.perSecond >= 0.8, x.cpu >= 0.8),
    ]
  }
  return [
    `${label}, Floodgate Redis above ${peerRedis}`,
    `${fmtRatio(x.perSecond)} vs ${fmtRatio(p.perSecond)} of bare req/s (CPU per request: ${fmtRatio(x.cpu)} vs ${fmtRatio(p.cpu)})`,
    verdict(x.perSecond > p.perSecond, x.cpu > p.cpu),
  ]
}

function redisCpuGoal(throughput, fw) {
  const { label, peerRedis } = FRAMEWORKS[fw]
  const goal = `${label}, Floodgate Redis: Redis CPU per request at or below the peer's (${peerRedis})`
  const [fg, peer] = REDIS_PAIR.map((id) => throughput[fw][id])
  if (!fg?.redisCpuXPeer) return [goal, "not measured (no Redis of the suite's own)", 'n/a']
  const x = fg.redisCpuXPeer.median
  return [
    goal,
    `${medianOf(fg, 'redisCpuUsPerRequest').toFixed(1)} vs ${medianOf(peer, 'redisCpuUsPerRequest').toFixed(1)} ` +
      `Redis CPU µs per request (peer's ÷ Floodgate's: ${fmtRatio(x)})`,
    x >= 1 ? 'met' : 'NOT met',
  ]
}

function refusalGoal(throughput, fw) {
  const refuse = throughput[fw]['fg-refuse']
  const q = medianOf(refuse, 'perSecondXPass')
  const c = medianOf(refuse, 'cpuXPass')
  return [
    `${FRAMEWORKS[fw].label}, Floodgate refusal path >= pass path`,
    `refusal/pass ${fmtRatio(q)} req/s (pass CPU/req ÷ refusal CPU/req: ${fmtRatio(c)})`,
    verdict(q >= 1, c >= 1),
  ]
}

/** Metrics on cost at most 1 µs of server CPU per request more than the same server with metrics off. */
function metricsGoal(throughput, fw, [off, on]) {
  const cell = throughput[fw][on]
  const goal = `${FRAMEWORKS[fw].label}, ${labelOf(fw, configurationOf(on))}: at most +1 µs server CPU per request`
  if (!cell?.metricsCpuUsPerRequest) return [goal, 'not measured', 'n/a']
  const { median, q1, q3 } = cell.metricsCpuUsPerRequest
  const sign = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`
  return [
    goal,
    `${sign(median)} µs per request against ${off} (quartiles ${sign(q1)} to ${sign(q3)})`,
    median <= 1
      ? 'met'
      : q1 <= 1
        ? 'not resolved by this run (its quartiles span 1 µs): see bench/results/metrics.md'
        : 'NOT met',
  ]
}

function pipelinedGoal(pipelinedRows, fw, pipelinedSettings) {
  const row = pipelinedRows.find((x) => x.framework === fw && x.limiter === 'floodgate')
  const n = row.tries.length
  return [
    `${FRAMEWORKS[fw].label}, exactly ${pipelinedSettings.limit} of ${pipelinedSettings.count} pipelined pass`,
    `${row.tries.map(passedOf).join(', ')} passed (${n} ${n === 1 ? 'try' : 'tries'})`,
    isExact(row, pipelinedSettings) ? 'met' : 'NOT met',
  ]
}

/** Every goal row, grouped by goal, frameworks in order within a group. */
export function goalRows({ meta, throughput, pipelined }) {
  const each = (row) => FRAMEWORK_IDS.map((fw) => row(fw))
  const hasRedis = FRAMEWORK_IDS.some((fw) => throughput[fw]['fg-redis'])
  return [
    ...each((fw) => memoryGoal(throughput, fw)),
    ...each((fw) => redisGoal(throughput, fw)),
    ...(hasRedis ? each((fw) => redisCpuGoal(throughput, fw)) : []),
    ...each((fw) => refusalGoal(throughput, fw)),
    ...METRICS_PAIRS.flatMap((pair) => each((fw) => metricsGoal(throughput, fw, pair))),
    ...each((fw) => pipelinedGoal(pipelined, fw, meta.config.pipelined)),
  ]
}
