/**
 * From slices to cells: per configuration, the median slice and quartiles of every measure, and the ratios
 * paired within a cycle (to bare; refusal to pass; Floodgate's Redis CPU to the peer's). Pure: it only adds
 * fields to the results it is given. Also the readers the goals and the tables share.
 */
import { quartiles } from '../../lib/stats.mjs'
import { howOf } from './apps.mjs'
import { labelOf, METRICS_PAIRS, PASS_AND_REFUSAL, REDIS_PAIR } from './config.mjs'

/** A Redis figure of a slice per response (NaN where the slice was not measured on the suite's own Redis). */
const redisPerRequest = (slice, field) =>
  slice[field] === undefined ? Number.NaN : slice[field] / slice.responses

/** Calls per request of each command Redis ran, over all of a cell's slices (scripts' commands included). */
function commandMix(slices) {
  const calls = {}
  let responses = 0
  for (const x of slices) {
    responses += x.responses
    for (const [name, n] of Object.entries(x.redisCommandCalls ?? {})) calls[name] = (calls[name] ?? 0) + n
  }
  return Object.fromEntries(
    Object.entries(calls)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, n]) => [name, n / responses]),
  )
}

/** Summarise one framework's cells in place: `results` = { [configuration id]: { slices } }. */
export function summarizeFramework(results, framework, configurations) {
  const bare = results.bare.slices
  for (const configuration of configurations) {
    const cell = results[configuration.id]
    const own = cell.slices
    cell.label = labelOf(framework, configuration)
    cell.how = howOf(framework, configuration.limiter, configuration.store, configuration.metrics)
    cell.perSecond = quartiles(own.map((x) => x.perSecond))
    cell.cpuUsPerRequest = quartiles(own.map((x) => x.cpuUsPerRequest))
    cell.p50Ms = quartiles(own.map((x) => x.p50Ms))
    cell.p99Ms = quartiles(own.map((x) => x.p99Ms))
    // Paired with bare's slice of the same cycle.
    cell.perSecondXBare = quartiles(own.map((x, i) => x.perSecond / bare[i].perSecond))
    cell.cpuXBare = quartiles(own.map((x, i) => bare[i].cpuUsPerRequest / x.cpuUsPerRequest))
    const statuses = {}
    for (const x of own) for (const [k, n] of Object.entries(x.statuses)) statuses[k] = (statuses[k] ?? 0) + n
    cell.statuses = statuses
    if (configuration.store === 'redis' && own.some((x) => x.redisCpuUs !== undefined)) {
      cell.redisCpuUsPerRequest = quartiles(own.map((x) => redisPerRequest(x, 'redisCpuUs')))
      cell.redisCommandsPerRequest = quartiles(own.map((x) => redisPerRequest(x, 'redisCommands')))
      cell.redisCommandUsPerRequest = quartiles(own.map((x) => redisPerRequest(x, 'redisCommandUs')))
      cell.cpuWithRedisUsPerRequest = quartiles(
        own.map((x) => x.cpuUsPerRequest + redisPerRequest(x, 'redisCpuUs')),
      )
      cell.redisCommandMix = commandMix(own)
    }
  }
  for (const [pass, refuse] of PASS_AND_REFUSAL) {
    const p = results[pass].slices
    const q = results[refuse]
    q.perSecondXPass = quartiles(q.slices.map((x, i) => x.perSecond / p[i].perSecond))
    q.cpuXPass = quartiles(q.slices.map((x, i) => p[i].cpuUsPerRequest / x.cpuUsPerRequest))
  }
  for (const [off, on] of METRICS_PAIRS) {
    if (!results[off] || !results[on]) continue
    // Server CPU µs per request with metrics on minus the same configuration off, paired within a cycle.
    const o = results[off].slices
    results[on].metricsCpuUsPerRequest = quartiles(
      results[on].slices.map((x, i) => x.cpuUsPerRequest - o[i].cpuUsPerRequest),
    )
  }
  const [fg, peer] = REDIS_PAIR.map((id) => results[id])
  if (fg?.redisCpuUsPerRequest && peer?.redisCpuUsPerRequest) {
    // The peer's Redis CPU per request ÷ Floodgate's, paired within a cycle: at or above 1.0 Floodgate costs
    // Redis no more CPU per request than the peer.
    fg.redisCpuXPeer = quartiles(
      fg.slices.map(
        (x, i) => redisPerRequest(peer.slices[i], 'redisCpuUs') / redisPerRequest(x, 'redisCpuUs'),
      ),
    )
  }
  return results
}

/** The median of a cell's measure, or undefined when the cell or the measure is missing. */
export const medianOf = (cell, measure) => cell?.[measure]?.median

/**
 * Ratios to bare (paired within a cycle, median over cycles): req/s ÷ bare's, and bare's CPU µs per request ÷
 * this one's (below 1.0 costs more CPU per request than bare).
 */
export function ratiosToBare(throughput, framework, id) {
  const cell = throughput[framework][id]
  return {
    perSecond: medianOf(cell, 'perSecondXBare') ?? Number.NaN,
    cpu: medianOf(cell, 'cpuXBare') ?? Number.NaN,
  }
}
