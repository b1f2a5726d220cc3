// What the rate-limit headers cost a request, timed: one framework's hello-world route bare, behind its peer,
// and behind Floodgate on the memory store in each header mode (draft-6's four headers, the default;
// draft-8's two; legacy's three X-RateLimit-* headers, the peer's own set; none), at a limit nothing reaches.
// The server CPU each adds per request over bare, paired within a cycle as in the http suite (the same
// servers, warm-up, slices and rotation: bench/suites/http/throughput.mjs), so that the header count and the
// limiter's own work can be told apart on the framework where the added CPU differs most from the peer's.
//
//   node bench/suites/http/header-modes.mjs                    Fastify (about 2 minutes)
//   node bench/suites/http/header-modes.mjs koa --cycles 12    another framework, more cycles
//
// Imports the built packages: build first (`npx -y pnpm@12.4.2 exec turbo run build`).
import os from 'node:os'
import { parseArgs } from '../../lib/child.mjs'
import { quartiles } from '../../lib/stats.mjs'
import { settingsOf } from './config.mjs'
import { measureSlice, warmUp } from './measure-slice.mjs'
import { spawnServer } from './server-process.mjs'

const ROWS = [
  { id: 'bare', limiter: 'none' },
  { id: 'peer', limiter: 'peer' },
  { id: 'floodgate draft-6 (4 headers)', limiter: 'floodgate' },
  { id: 'floodgate legacy (3 headers)', limiter: 'floodgate', floodgateOptions: { headers: 'legacy' } },
  { id: 'floodgate draft-8 (2 headers)', limiter: 'floodgate', floodgateOptions: { headers: 'draft-8' } },
  { id: 'floodgate no headers', limiter: 'floodgate', floodgateOptions: { headers: false } },
]

const args = parseArgs()
const framework = args._[0] ?? 'fastify'
const settings = settingsOf(args)
const servers = []
try {
  for (const row of ROWS) {
    const spec = {
      framework,
      limiter: row.limiter,
      store: 'memory',
      limit: settings.passLimit,
      prefix: `fgbench-headers:${process.pid}:${servers.length}`,
      floodgateOptions: row.floodgateOptions,
    }
    servers.push({ row, server: await spawnServer(spec), slices: [] })
  }
  for (const s of servers) await warmUp(s.server, settings)
  for (let c = 0; c < settings.cycles; c++) {
    const shift = c % servers.length
    for (const s of [...servers.slice(shift), ...servers.slice(0, shift)]) {
      s.slices.push(await measureSlice(s.server, settings))
    }
    console.error(`cycle ${c + 1}/${settings.cycles}, load ${os.loadavg()[0].toFixed(2)}`)
  }
} finally {
  for (const s of servers) await s.server.stop()
}

const bare = servers[0].slices
const fmt = (q) => `${q.median.toFixed(1)} (${q.q1.toFixed(1)} to ${q.q3.toFixed(1)})`
console.log(
  `${framework}, memory store, ${settings.cycles} cycles of ${settings.sliceMs} ms, ${settings.connections} connections`,
)
console.log(
  '| server | µs CPU per request | added over bare, paired in a cycle | of which user | of which kernel | x bare req/s |',
)
console.log('|---|---:|---:|---:|---:|---:|')
const addedOver = (slices, field) => quartiles(slices.map((x, i) => x[field] - bare[i][field]))
for (const { row, slices } of servers) {
  const cpu = quartiles(slices.map((x) => x.cpuUsPerRequest))
  const rate = quartiles(slices.map((x, i) => x.perSecond / bare[i].perSecond))
  const added =
    row.id === 'bare'
      ? ' | | '
      : [
          addedOver(slices, 'cpuUsPerRequest'),
          addedOver(slices, 'userUsPerRequest'),
          addedOver(slices, 'systemUsPerRequest'),
        ]
          .map(fmt)
          .join(' | ')
  console.log(`| ${row.id} | ${fmt(cpu)} | ${added} | ${rate.median.toFixed(2)} |`)
}
console.log(
  `load average at the end: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(', ')}`,
)
