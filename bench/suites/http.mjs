// @bench-title HTTP servers
// @bench-flags
//
// Floodgate's Express, Fastify and Koa adapters against each framework bare and behind its usual peer, over
// real HTTP on 127.0.0.1, in one run:
//   - requests per second and server CPU time per request on a hello-world route: bare; Floodgate on the
//     memory store and on RedisStore; the peer on its memory store and on Redis, all at a limit nothing
//     reaches; and the refusal path (a limit of 1 per minute, so everything after the first request is a
//     429) for Floodgate and the peer on memory stores;
//   - Redis CPU per request for the Redis rows, on a redis-server the suite starts for itself;
//   - Floodgate with metrics on (prometheus() and openTelemetry() on memory, prometheus() on RedisStore):
//     the server CPU per request it adds, paired with the same configuration off within a cycle;
//   - 300 HTTP-pipelined GETs written at once on one connection at a limit of 100 per minute: how many pass.
// Every server runs in its own child process (bench/suites/http/server.mjs, started with fork) and reports
// its process.cpuUsage() over IPC; the load generator (bench/suites/http/client.mjs: keep-alive
// connections on node:net, one request in flight each) runs in this process. Cycles interleave the
// configurations; each configuration runs in `--processes` fresh server processes in turn. Writes bench/results/http.md and
// bench/results/http.json. Imports the built packages: build first (`npx turbo run build`).
//
//   node bench/suites/http.mjs                 the full suite (about 6 minutes on 2 cores)
//   node bench/suites/http.mjs --quick         a smoke run (numbers not representative)
//   node bench/suites/http.mjs --cycles 8 --processes 2 --slice 500 --warmup 2000 --connections 50
//   node bench/suites/http.mjs --render        only rewrite bench/results/http.md from http.json
//   node bench/suites/http.mjs --profile       instead: profile Floodgate's servers (V8 CPU profiler) on the
//                                              pass and refusal paths, write bench/results/http.profile.md

import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from '../lib/child.mjs'
import { buildOf, commandLine, machine, resultsDir } from '../lib/env.mjs'
import { fmtCount } from '../lib/format.mjs'
import { readResults, writeResults } from '../lib/results.mjs'
import { CONFIGURATIONS, FRAMEWORK_IDS, settingsOf } from './http/config.mjs'
import { log } from './http/log.mjs'
import { checkPipelined } from './http/pipelined-check.mjs'
import { profileServers } from './http/profile-run.mjs'
import { describeRedis, openRedisTarget } from './http/redis-target.mjs'
import { renderResults } from './http/render/results.mjs'
import { measureThroughput } from './http/throughput.mjs'

const args = parseArgs()
const started = Date.now()
/** Every Redis key of this run lives under this prefix (one per server below it). */
const RUN_PREFIX = `fgbench-http:${process.pid}`
const ADAPTERS = ['@floodgate/express', '@floodgate/fastify', '@floodgate/koa', '@floodgate/redis']
const builds = () => [buildOf(), ...ADAPTERS.map((p) => buildOf(p))]

/** Configure: the settings, the Redis the Redis rows use, and what the results say about the run. */
async function configure() {
  const configured = settingsOf(args)
  const redis = await openRedisTarget(configured.redis)
  const settings = redis
    ? { ...configured, redis: { ...configured.redis, host: redis.host, port: redis.port } }
    : configured
  const [floodgate, ...adapters] = builds()
  const meta = {
    ...machine(),
    command: commandLine(),
    quick: Boolean(args.quick),
    config: settings,
    floodgate,
    adapters,
    redisServer: describeRedis(redis),
  }
  return { settings, redis, meta }
}

/** Measure: throughput (with Redis CPU) for every framework and configuration, then the pipelined check. */
async function measure({ settings, redis, meta }) {
  const rows = CONFIGURATIONS.filter((c) => c.store !== 'redis' || redis).length
  log(
    `${FRAMEWORK_IDS.length} frameworks x ${rows} configurations: warm-up to ${fmtCount(settings.warmupRequests)} requests, ` +
      `${settings.cycles} cycles of ${settings.sliceMs} ms slices, ${settings.connections} connections; load average ${meta.loadavg.join(' / ')}`,
  )
  const throughput = await measureThroughput({ settings, runPrefix: RUN_PREFIX, redis })
  log(`pipelined: ${settings.pipelined.count} requests on one connection, limit ${settings.pipelined.limit}`)
  const pipelined = await checkPipelined({ settings, runPrefix: RUN_PREFIX })
  meta.elapsedMs = Date.now() - started
  meta.loadavgEnd = machine().loadavg
  const before = [meta.floodgate, ...meta.adapters]
  meta.rebuiltDuringRun = builds().some((x, i) => x.sha256 !== before[i].sha256)
  if (meta.rebuiltDuringRun) log('WARNING: a package was rebuilt during the run; rerun on a stable build')
  return { meta, throughput, pipelined }
}

/** Render: bench/results/http.md, pointing to the CPU profiles when there are any. */
const render = (data) =>
  renderResults(data, { profileReport: fs.existsSync(path.join(resultsDir, 'http.profile.md')) })

async function closeRedis(redis) {
  if (!redis) return
  const left = await redis.deleteKeys(`${RUN_PREFIX}:`)
  if (left) log(`deleted ${left} leftover Redis keys under ${RUN_PREFIX}:`)
  await redis.close()
}

if (args.render) {
  const stored = readResults('http')
  if (!stored?.json) throw new Error('no bench/results/http.json to render: run the suite first')
  const files = writeResults('http', render(stored.json), stored.json)
  log(`wrote ${files.md} from ${files.json} (measured ${stored.json.meta.date})`)
} else {
  const run = await configure()
  try {
    if (args.profile) {
      await profileServers({ ...run, runPrefix: RUN_PREFIX })
    } else {
      const data = await measure(run)
      const files = writeResults('http', render(data), data)
      log(`wrote ${files.md} and ${files.json} in ${Math.round(data.meta.elapsedMs / 1000)} s`)
    }
  } finally {
    await closeRedis(run.redis)
  }
}
