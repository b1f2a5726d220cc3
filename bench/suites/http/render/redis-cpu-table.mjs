/**
 * What the Redis rows cost Redis: its CPU per request, read on the redis-server the suite started for itself
 * (nothing else talks to it), against the peer on Redis.
 */
import { fmtCount, fmtRatio, fmtSpread, mdTable, right } from '../../../lib/format.mjs'
import { FRAMEWORKS } from '../apps.mjs'
import { FRAMEWORK_IDS, REDIS_PAIR } from '../config.mjs'
import { redisUsed } from './throughput-tables.mjs'

const HEADING = '### Redis CPU per request'

/** Redis's CPU µs per second of wall time during the slices of the rows that do not use Redis. */
function idleFloor(throughput) {
  let cpuUs = 0
  let ms = 0
  for (const fw of FRAMEWORK_IDS) {
    for (const [id, cell] of Object.entries(throughput[fw])) {
      if (REDIS_PAIR.includes(id)) continue
      for (const s of cell.slices.filter((x) => x.redisCpuUs !== undefined)) {
        cpuUs += s.redisCpuUs
        ms += s.elapsedMs
      }
    }
  }
  return (cpuUs / ms) * 1000
}

/** The Redis rows measured on the suite's own Redis: `[framework, id, cell]`. */
const measuredCells = (throughput) =>
  FRAMEWORK_IDS.flatMap((fw) =>
    REDIS_PAIR.filter((id) => throughput[fw][id]?.redisCpuUsPerRequest).map((id) => [
      fw,
      id,
      throughput[fw][id],
    ]),
  )

const fmtMix = (mix) =>
  Object.entries(mix ?? {})
    .map(([name, n]) => `${name.toUpperCase()} ${Number(n.toPrecision(2))}`)
    .join(', ')

function rows(throughput) {
  return measuredCells(throughput).map(([fw, id, cell]) => [
    FRAMEWORKS[fw].label,
    cell.label,
    cell.redisCpuUsPerRequest.median.toFixed(1),
    fmtSpread(cell.redisCpuUsPerRequest.iqrSpread),
    fmtRatio(id === 'peer-redis' ? 1 : (cell.redisCpuXPeer?.median ?? Number.NaN)),
    cell.redisCommandsPerRequest.median.toFixed(2),
    cell.redisCommandUsPerRequest.median.toFixed(1),
    cell.cpuWithRedisUsPerRequest.median.toFixed(1),
  ])
}

export function redisCpuLines({ meta, throughput }) {
  if (!FRAMEWORK_IDS.some((fw) => throughput[fw]['fg-redis'])) return []
  if (!meta.redisServer) return [HEADING, '', 'Not measured in this run.', '']
  if (!meta.redisServer.own) {
    return [
      HEADING,
      '',
      `Not measured in this run: the Redis rows used ${redisUsed(meta)}, whose CPU other work shares (the ` +
        'suite measures Redis CPU on a redis-server of its own, and could not start one).',
      '',
    ]
  }
  const floor = idleFloor(throughput)
  const cells = measuredCells(throughput)
  const slowest = Math.min(...cells.map(([, , cell]) => cell.perSecond.median))
  return [
    HEADING,
    '',
    `The Redis rows ran against ${redisUsed(meta)}. Its CPU time (\`INFO cpu\`: \`used_cpu_user\` + ` +
      '`used_cpu_sys`, the whole server process, its network reads and writes included) and its commands ' +
      '(`INFO commandstats`, leaving out the `INFO` of the measuring) are read at the start and at the end of ' +
      "every slice, together with the HTTP server's CPU, and divided by the slice's responses (EVALSHA, which " +
      'every Redis limiter here sends once per request, comes out near 1 per request: a check of the count); ' +
      'a cell is the median slice, ± half the interquartile range. While the rows without ' +
      `Redis were measured it used ${Math.round(floor)} µs of CPU per second (its own timers and the ` +
      'readings): the floor under these numbers, at most ' +
      `${(floor / slowest).toFixed(1)} µs per request at the slowest Redis row's ${fmtCount(slowest)} req/s. ` +
      '`commands/req` and `command µs/req` (the time Redis spent executing them, its ' +
      "`usec`) come from `INFO commandstats`; `server + Redis` = the HTTP server's CPU µs per request plus " +
      "Redis's, slice by slice.",
    '',
    "**1.0x = the peer on Redis, same framework, this run.** `Redis CPU x peer` = the peer's Redis CPU µs " +
      "per request ÷ this row's, paired within a cycle, median over cycles: at or above 1.0, Floodgate costs " +
      'Redis no more CPU per request than the peer.',
    '',
    mdTable(
      [
        'framework',
        'configuration',
        right('Redis CPU µs/req'),
        right('±'),
        right('Redis CPU x peer'),
        right('commands/req'),
        right('command µs/req'),
        right('server + Redis CPU µs/req'),
      ],
      rows(throughput),
    ),
    '',
    'The commands per request, those the scripts run included (`INFO commandstats` over all slices):',
    '',
    ...cells.map(
      ([fw, , cell]) => `- ${FRAMEWORKS[fw].label}, ${cell.label}: ${fmtMix(cell.redisCommandMix)}`,
    ),
    '',
  ]
}
