/** Requests per second and server CPU per request: how they are measured, then one table per framework. */
import { fmtCount, fmtRatio, fmtSpread, mdTable, right } from '../../../lib/format.mjs'
import { FRAMEWORKS } from '../apps.mjs'
import { CONFIGURATIONS, FRAMEWORK_IDS } from '../config.mjs'
import { ratiosToBare } from '../summarize-throughput.mjs'

/** Which Redis the Redis rows used (results from before `meta.redisServer` name the shared one). */
export function redisUsed(meta) {
  const r = meta.redisServer ?? { host: meta.config.redis.host, port: meta.config.redis.port }
  return r.own
    ? `a redis-server ${r.version} of this run's own on ${r.host}:${r.port} (no persistence, as the shared one ` +
        'runs; nothing else talks to it)'
    : `${r.host}:${r.port}`
}

function methodLines({ meta }) {
  const s = meta.config
  return [
    '### Requests per second and server CPU per request',
    '',
    `A hello-world route (\`GET /\` answering \`Hello, world!\`), ${s.connections} keep-alive ` +
      'connections from this process, one request in flight on each (a minimal HTTP/1.1 client on ' +
      '`node:net`, cheaper per request than autocannon, so the server gets as much of the 2 cores as it ' +
      'can). Per framework, one server process per configuration, all started together' +
      `${(s.processes ?? 1) > 1 ? `, ${s.processes} times over (fresh processes, the cycles shared out among them)` : ''}; each is warmed up ` +
      `under the same load until it has answered ${fmtCount(s.warmupRequests)} requests (${s.warmupMs} ` +
      `to ${s.warmupMaxMs} ms; JIT), then all are measured in ${s.cycles} cycles, every ` +
      `cycle giving every server one slice of ${s.sliceMs} ms (after ${s.settleMs} ms for the new ` +
      'connections to settle), in a rotating order, so that bursts of other work on the machine fall on every ' +
      'configuration alike. A cell is the median slice, ± half the interquartile range; `x bare` is the ' +
      "median over cycles of the ratio to bare's slice in the same cycle. CPU = the server process's " +
      '`process.cpuUsage()` (user + system, all threads) over the slice, reported over IPC, divided by the ' +
      "responses; it leaves out the load generator and Redis's own CPU" +
      `${meta.redisServer?.own ? " (Redis's is in a table of its own, below)" : ''}, and moves less than ` +
      'req/s when other processes take the cores. ' +
      `Pass rows: ${fmtCount(s.passLimit)} per minute per IP, nothing is refused; refusal rows: 1 per ` +
      'minute, so every measured response is a 429. Every limiter keys by client address (all ' +
      `127.0.0.1: one hot key). Redis: ${redisUsed(meta)}, one ioredis client per server, ` +
      `\`${JSON.stringify({ enableAutoPipelining: s.redis.enableAutoPipelining })}\` for every ` +
      'contender, keys under a prefix per server, deleted after it by SCAN + DEL.',
    '',
    "**1.0x = the same framework bare, in this run.** `x bare` = this row's req/s ÷ bare's; `CPU x bare` = " +
      "bare's CPU µs per request ÷ this row's (below 1.0 = more server CPU per request than bare).",
    '',
  ]
}

const COLUMNS = [
  'configuration',
  right('req/s'),
  right('±'),
  right('x bare'),
  right('CPU µs/req'),
  right('±'),
  right('CPU x bare'),
  right('p50 / p99 ms'),
  'responses (all slices)',
]

function frameworkTable(throughput, fw) {
  const rows = CONFIGURATIONS.filter((c) => throughput[fw][c.id]).map((c) => {
    const cell = throughput[fw][c.id]
    const x = ratiosToBare(throughput, fw, c.id)
    return [
      cell.label,
      fmtCount(cell.perSecond.median),
      fmtSpread(cell.perSecond.iqrSpread),
      fmtRatio(x.perSecond),
      cell.cpuUsPerRequest.median.toFixed(1),
      fmtSpread(cell.cpuUsPerRequest.iqrSpread),
      fmtRatio(x.cpu),
      `${cell.p50Ms.median.toFixed(1)} / ${cell.p99Ms.median.toFixed(1)}`,
      Object.entries(cell.statuses)
        .map(([s, n]) => `${s}: ${fmtCount(n)}`)
        .join(', '),
    ]
  })
  return [`#### ${FRAMEWORKS[fw].label}`, '', mdTable(COLUMNS, rows), '']
}

export function throughputLines(data) {
  return [...methodLines(data), ...FRAMEWORK_IDS.flatMap((fw) => frameworkTable(data.throughput, fw))]
}
