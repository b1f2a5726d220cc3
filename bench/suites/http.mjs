// @bench-title HTTP servers
// @bench-flags
//
// Floodgate's Express, Fastify and Koa adapters against each framework bare and behind its usual peer, over
// real HTTP on 127.0.0.1, in one run:
//   - requests per second and server CPU time per request on a hello-world route: bare; Floodgate on the
//     memory store and on RedisStore; the peer on its memory store and on Redis, all at a limit nothing
//     reaches; and the refusal path (a limit of 1 per minute, so everything after the first request is a
//     429) for Floodgate and the peer on memory stores;
//   - 300 HTTP-pipelined GETs written at once on one connection at a limit of 100 per minute: how many pass.
// Every server runs in its own child process (bench/suites/http/server.mjs, started with fork) and reports
// its process.cpuUsage() over IPC; the load generator (bench/suites/http/client.mjs: keep-alive
// connections on node:net, one request in flight each) runs in this process. Rounds interleave the
// configurations, every measurement in a fresh server process. Writes bench/results/http.md and
// bench/results/http.json. Imports the built packages: build first (`npx turbo run build`).
//
//   node bench/suites/http.mjs                 the full suite (about 4 minutes on 2 cores)
//   node bench/suites/http.mjs --quick         a smoke run (numbers not representative)
//   node bench/suites/http.mjs --cycles 8 --slice 500 --warmup 2000 --connections 50
//   node bench/suites/http.mjs --profile       instead: profile Floodgate's servers (V8 CPU profiler) on the
//                                              pass and refusal paths, write bench/results/http.profile.md

import { fork } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from '../lib/child.mjs'
import { buildOf, commandLine, machine, resultsDir } from '../lib/env.mjs'
import { fmtCount, fmtRatio, fmtSpread, mdTable } from '../lib/format.mjs'
import { writeResults } from '../lib/results.mjs'
import { percentile, sorted } from '../lib/stats.mjs'
import { FRAMEWORKS, howOf } from './http/apps.mjs'
import { pipelined, startLoad } from './http/client.mjs'
import { summarizeProfile } from './http/profile.mjs'

const SERVER = fileURLToPath(new URL('./http/server.mjs', import.meta.url))
const args = parseArgs()
const quick = Boolean(args.quick)

const CONFIG = {
  // A fresh server needs tens of thousands of requests before its CPU per request settles (JIT): on this busy
  // 2-core machine Express bare went 830 -> 900 -> 2.7k -> 4.4k req/s in 0.7 s steps, and Fastify bare still
  // took 99 µs/request after 2 s of warm-up, 30 µs later. Each server is warmed up until it has answered
  // `warmupRequests`, for at least `warmupMs` and at most `warmupMaxMs`.
  warmupMs: Number(args.warmup ?? (quick ? 300 : 1500)),
  warmupRequests: quick ? 1000 : 30_000,
  warmupMaxMs: quick ? 600 : 7000,
  /** Then every server is measured `cycles` times, `sliceMs` each, in rotation. */
  cycles: Number(args.cycles ?? (quick ? 2 : 8)),
  sliceMs: Number(args.slice ?? (quick ? 200 : 500)),
  /** New connections settle this long before a slice's counters start. */
  settleMs: quick ? 50 : 150,
  connections: Number(args.connections ?? 50),
  passLimit: 1e9,
  refuseLimit: 1,
  pipelined: { count: 300, limit: 100, repeats: quick ? 1 : 2 },
  /** One ioredis option set for every Redis contender (the redis suite's, too). */
  redis: { host: '127.0.0.1', port: 6379, enableAutoPipelining: args.pipelining !== 'off' },
  profileMs: Number(args['profile-ms'] ?? 4000),
}
const PREFIX = `fgbench-http:${process.pid}`

/** The configurations measured for every framework. */
const CONFIGS = [
  { id: 'bare', limiter: 'none', label: 'bare (no limiter)' },
  { id: 'fg-memory', limiter: 'floodgate', store: 'memory', limit: 'pass', label: 'Floodgate, memory' },
  { id: 'fg-redis', limiter: 'floodgate', store: 'redis', limit: 'pass', label: 'Floodgate, RedisStore' },
  { id: 'peer-memory', limiter: 'peer', store: 'memory', limit: 'pass' },
  { id: 'peer-redis', limiter: 'peer', store: 'redis', limit: 'pass' },
  {
    id: 'fg-refuse',
    limiter: 'floodgate',
    store: 'memory',
    limit: 'refuse',
    label: 'Floodgate, memory, refusal path',
  },
  { id: 'peer-refuse', limiter: 'peer', store: 'memory', limit: 'refuse' },
]
const FW = Object.keys(FRAMEWORKS)

function labelOf(framework, config) {
  if (config.limiter !== 'peer') return config.label
  const f = FRAMEWORKS[framework]
  if (config.id === 'peer-memory') return f.peerMemory
  if (config.id === 'peer-redis') return f.peerRedis
  return `${f.peerMemory}, refusal path`
}

const log = (msg) => console.error(`[http] ${msg}`)
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------------------
// Servers in child processes.

/** Fork one server; resolves with `{ port, cpu(), stop() }`. */
function spawnServer(spec, { execArgv = [] } = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(SERVER, [JSON.stringify(spec)], {
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    let nextId = 0
    const pending = new Map()
    const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`server ${JSON.stringify(spec)} not ready after 30 s`))
    }, 30_000)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      for (const p of pending.values()) p.reject(new Error(`server exited (${signal ?? code})`))
      reject(new Error(`server ${JSON.stringify(spec)} exited before it was ready (${signal ?? code})`))
    })
    child.on('message', (message) => {
      if (message?.type === 'ready') {
        clearTimeout(timer)
        resolve({
          port: message.port,
          cpu() {
            const id = nextId++
            return new Promise((res, rej) => {
              pending.set(id, { resolve: res, reject: rej })
              child.send({ type: 'cpu', id })
            })
          },
          /** Start (`file` undefined) or stop the server's CPU profiler, writing the profile to `file`. */
          profile(file) {
            const id = nextId++
            return new Promise((res, rej) => {
              pending.set(id, { resolve: res, reject: rej })
              child.send(file ? { type: 'profile-stop', id, file } : { type: 'profile-start', id })
            })
          },
          async stop() {
            if (child.connected) child.send({ type: 'stop' })
            const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
            const outcome = await exited
            clearTimeout(killer)
            return outcome
          },
        })
      } else if (message?.type === 'profile') {
        const p = pending.get(message.id)
        pending.delete(message.id)
        p?.resolve()
      } else if (message?.type === 'cpu') {
        const p = pending.get(message.id)
        pending.delete(message.id)
        p?.resolve({ cpuUs: message.user + message.system, user: message.user, system: message.system })
      }
    })
  })
}

/** SCAN + DEL every key under `prefix` (never FLUSH: the Redis is shared). Returns how many were deleted. */
async function deleteKeys(redis, prefix) {
  let cursor = '0'
  let deleted = 0
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
    cursor = next
    if (keys.length) deleted += await redis.del(...keys)
  } while (cursor !== '0')
  return deleted
}

function specOf(framework, config, round) {
  return {
    framework,
    limiter: config.limiter,
    store: config.store ?? 'memory',
    limit: config.limit === 'refuse' ? CONFIG.refuseLimit : CONFIG.passLimit,
    prefix: `${PREFIX}:${framework}:${config.id}:r${round}`,
    redisOptions: CONFIG.redis,
  }
}

/**
 * One measured slice on a running server: open the connections, let them settle, then count responses and
 * the server's CPU over `ms`; close the connections.
 */
async function slice(server, ms, settleMs = CONFIG.settleMs) {
  const load = startLoad({ port: server.port, connections: CONFIG.connections })
  await sleep(settleMs)
  const c0 = await server.cpu()
  load.reset()
  await sleep(ms)
  const c1 = await server.cpu()
  const snap = load.snapshot()
  await load.stop()
  const lat = sorted(snap.latencies)
  return {
    perSecond: snap.responses / (snap.elapsedMs / 1000),
    cpuUsPerRequest: (c1.cpuUs - c0.cpuUs) / snap.responses,
    serverCpuShare: (c1.cpuUs - c0.cpuUs) / 1000 / snap.elapsedMs,
    responses: snap.responses,
    statuses: snap.statuses,
    p50Ms: percentile(lat, 50),
    p99Ms: percentile(lat, 99),
    reconnects: snap.reconnects,
    errors: snap.errors,
    elapsedMs: snap.elapsedMs,
    loadavg1: Math.round(os.loadavg()[0] * 100) / 100,
  }
}

/** Load a server until it has answered CONFIG.warmupRequests (within CONFIG.warmupMs..warmupMaxMs). */
async function warmUp(server) {
  const load = startLoad({ port: server.port, connections: CONFIG.connections })
  const started = Date.now()
  let last = { responses: 0, elapsedMs: 0 }
  let lastPerSecond = 0
  for (;;) {
    await sleep(250)
    const snap = load.snapshot()
    lastPerSecond = ((snap.responses - last.responses) / (snap.elapsedMs - last.elapsedMs)) * 1000
    last = snap
    const elapsed = Date.now() - started
    if (elapsed >= CONFIG.warmupMaxMs) break
    if (elapsed >= CONFIG.warmupMs && snap.responses >= CONFIG.warmupRequests) break
  }
  await load.stop()
  return { responses: last.responses, elapsedMs: Date.now() - started, lastPerSecond }
}

/**
 * One server on its own (the profile): fresh process, warm-up, one measured window with the CPU profiler on
 * (written to `profileFile`), stop, clean up.
 */
async function measure(spec, { redis, measureMs, profileFile }) {
  const server = await spawnServer(spec)
  await warmUp(server)
  await server.profile()
  const res = await slice(server, measureMs)
  await server.profile(profileFile)
  res.exit = await server.stop()
  if (spec.store === 'redis' && redis) res.redisKeysDeleted = await deleteKeys(redis, spec.prefix)
  return res
}

async function connectRedis() {
  try {
    const { Redis } = await import('ioredis')
    const redis = new Redis({
      host: CONFIG.redis.host,
      port: CONFIG.redis.port,
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      retryStrategy: () => null,
    })
    await redis.connect()
    await redis.ping()
    return redis
  } catch (error) {
    log(
      `Redis at ${CONFIG.redis.host}:${CONFIG.redis.port} unreachable (${error.message}): Redis rows skipped`,
    )
    return undefined
  }
}

// ---------------------------------------------------------------------------------------------------------
// The suite.

/** The median and quartiles of a few measurements, and the spread between the quartiles. */
function quartiles(values) {
  const v = sorted(values.filter(Number.isFinite))
  const median = percentile(v, 50)
  const q1 = percentile(v, 25)
  const q3 = percentile(v, 75)
  return { median, q1, q3, min: v[0], max: v[v.length - 1], iqrSpread: (q3 - q1) / median, n: v.length }
}

/**
 * Per framework: start one server per configuration (each its own process), warm each up under load, then
 * `cycles` times visit every server for one measured slice, in a rotating order. Short slices interleaved
 * over the same minute share the background load of the machine alike, which long back-to-back runs on a
 * busy 2-core machine do not; ratios are taken within a cycle (a configuration against bare measured
 * seconds apart) and their median is reported.
 */
async function measureThroughput(redis) {
  const configs = CONFIGS.filter((c) => c.store !== 'redis' || redis)
  const results = {}
  for (const framework of FW) {
    results[framework] = {}
    const servers = []
    try {
      for (const config of configs) {
        const spec = specOf(framework, config, 0)
        servers.push({ config, spec, server: await spawnServer(spec) })
        results[framework][config.id] = { slices: [] }
      }
      log(
        `${framework}: ${servers.length} servers up; warming each up to ${fmtCount(CONFIG.warmupRequests)} ` +
          `requests (${CONFIG.warmupMs}-${CONFIG.warmupMaxMs} ms)`,
      )
      for (const s of servers) {
        const warm = await warmUp(s.server)
        log(
          `${framework.padEnd(7)} warm-up ${s.config.id.padEnd(11)} ${fmtCount(warm.responses)} requests in ` +
            `${Math.round(warm.elapsedMs)} ms, last ${fmtCount(warm.lastPerSecond)} req/s`,
        )
      }
      for (let c = 0; c < CONFIG.cycles; c++) {
        const shift = c % servers.length
        const order = [...servers.slice(shift), ...servers.slice(0, shift)]
        const line = []
        for (const s of order) {
          const res = await slice(s.server, CONFIG.sliceMs)
          res.cycle = c
          results[framework][s.config.id].slices.push(res)
          line.push(`${s.config.id} ${fmtCount(res.perSecond)}/s ${res.cpuUsPerRequest.toFixed(0)}µs`)
          if (res.errors || res.reconnects)
            log(`${framework} ${s.config.id}: ${res.errors} errors, ${res.reconnects} reconnects`)
        }
        log(
          `${framework.padEnd(7)} cycle ${c + 1}/${CONFIG.cycles} (load ${os.loadavg()[0].toFixed(2)}): ${line.join(', ')}`,
        )
      }
    } finally {
      for (const s of servers) {
        await s.server.stop()
        if (s.spec.store === 'redis' && redis) await deleteKeys(redis, s.spec.prefix)
      }
    }
    const bare = results[framework].bare.slices
    for (const config of configs) {
      const cell = results[framework][config.id]
      const own = cell.slices
      cell.label = labelOf(framework, config)
      cell.how = howOf(framework, config.limiter, config.store)
      cell.perSecond = quartiles(own.map((x) => x.perSecond))
      cell.cpuUsPerRequest = quartiles(own.map((x) => x.cpuUsPerRequest))
      cell.p50Ms = quartiles(own.map((x) => x.p50Ms))
      cell.p99Ms = quartiles(own.map((x) => x.p99Ms))
      // Paired with bare's slice of the same cycle.
      cell.perSecondXBare = quartiles(own.map((x, i) => x.perSecond / bare[i].perSecond))
      cell.cpuXBare = quartiles(own.map((x, i) => bare[i].cpuUsPerRequest / x.cpuUsPerRequest))
      const statuses = {}
      for (const x of own)
        for (const [k, n] of Object.entries(x.statuses)) statuses[k] = (statuses[k] ?? 0) + n
      cell.statuses = statuses
    }
    // Refusal against pass, paired within a cycle.
    for (const [pass, refuse] of [
      ['fg-memory', 'fg-refuse'],
      ['peer-memory', 'peer-refuse'],
    ]) {
      const p = results[framework][pass].slices
      const q = results[framework][refuse]
      q.perSecondXPass = quartiles(q.slices.map((x, i) => x.perSecond / p[i].perSecond))
      q.cpuXPass = quartiles(q.slices.map((x, i) => p[i].cpuUsPerRequest / x.cpuUsPerRequest))
    }
  }
  return results
}

async function measurePipelined() {
  const rows = []
  for (const framework of FW) {
    for (const limiter of ['none', 'floodgate', 'peer']) {
      const tries = []
      for (let i = 0; i < (limiter === 'none' ? 1 : CONFIG.pipelined.repeats); i++) {
        const server = await spawnServer({
          framework,
          limiter,
          store: 'memory',
          limit: CONFIG.pipelined.limit,
          prefix: `${PREFIX}:pipelined`,
          redisOptions: CONFIG.redis,
        })
        const res = await pipelined({ port: server.port, count: CONFIG.pipelined.count })
        await server.stop()
        const counts = {}
        for (const s of res.statuses) counts[s] = (counts[s] ?? 0) + 1
        tries.push({ counts, received: res.statuses.length, complete: res.complete, why: res.why })
        log(
          `pipelined ${framework.padEnd(7)} ${limiter.padEnd(9)} ${res.statuses.length}/${CONFIG.pipelined.count} ` +
            `responses: ${Object.entries(counts)
              .map(([s, n]) => `${n} x ${s}`)
              .join(', ')} (${res.why})`,
        )
      }
      rows.push({
        framework,
        limiter,
        label:
          limiter === 'none'
            ? 'bare (no limiter)'
            : limiter === 'floodgate'
              ? 'Floodgate, memory'
              : FRAMEWORKS[framework].peerMemory,
        tries,
      })
    }
  }
  return rows
}

const med = (cell, metric) => cell?.[metric]?.median
/**
 * Ratios to bare (paired within a cycle, median over cycles): req/s ÷ bare's, and bare's CPU µs per request ÷
 * this one's (below 1.0 costs more CPU per request than bare).
 */
function ratios(results, framework, id) {
  const cell = results[framework][id]
  return { perSecond: med(cell, 'perSecondXBare') ?? Number.NaN, cpu: med(cell, 'cpuXBare') ?? Number.NaN }
}

function render({ meta, throughput, pipelined: pipelinedRows }) {
  const out = []
  const r = (title) => ({ title, align: 'right' })
  const has = (fw, id) => Boolean(throughput[fw][id])
  out.push(`## HTTP servers${quick ? ' (QUICK SMOKE RUN: numbers not representative)' : ''}`)
  out.push('')
  out.push(
    `Measured ${meta.date} on Node ${meta.node} (V8 ${meta.v8}), ${meta.cpu} x ${meta.cores}, ` +
      `load average ${meta.loadavg.join(' / ')} at the start and ${meta.loadavgEnd.join(' / ')} at the end ` +
      '(1 / 5 / 15 min; other work was running on the machine, and the load generator shares the 2 cores ' +
      `with the server). Suite: \`${meta.command}\` (${Math.round(meta.elapsedMs / 1000)} s).`,
  )
  out.push('')
  const b = meta.floodgate
  out.push(
    `Floodgate measured: ${b.package} ${b.version}, built ${b.builtAt} (\`${b.entry}\` sha256 ${b.sha256}) ` +
      `at commit ${b.commit}${b.sourcesModified ? ' with uncommitted changes to its sources' : ''}; adapters ` +
      `${meta.adapters.map((a) => `${a.package} (${a.sha256 ?? a.error})`).join(', ')}.` +
      `${meta.rebuiltDuringRun ? ' **WARNING: a package was rebuilt during the run; numbers mix two builds.**' : ''}`,
  )
  out.push('')

  // Goals.
  out.push("### Issue 4's goals")
  out.push('')
  const goals = []
  const fmtBoth = (x) => `${fmtRatio(x.perSecond)} of bare req/s (CPU per request: ${fmtRatio(x.cpu)})`
  /** The verdict on req/s (the issue's measure) and on CPU per request (steadier here). */
  const verdict = (bySecond, byCpu) =>
    bySecond && byCpu
      ? 'met'
      : bySecond
        ? 'met by req/s, NOT by CPU'
        : byCpu
          ? 'met by CPU only, NOT by req/s'
          : 'NOT met'
  for (const fw of FW) {
    const x = ratios(throughput, fw, 'fg-memory')
    goals.push([
      `${FRAMEWORKS[fw].label}, Floodgate memory >= 0.90x bare`,
      fmtBoth(x),
      verdict(x.perSecond >= 0.9, x.cpu >= 0.9),
    ])
  }
  for (const fw of FW) {
    if (!has(fw, 'fg-redis')) {
      goals.push([`${FRAMEWORKS[fw].label}, Floodgate Redis`, 'not measured (no Redis)', 'n/a'])
      continue
    }
    const x = ratios(throughput, fw, 'fg-redis')
    const p = ratios(throughput, fw, 'peer-redis')
    if (fw === 'fastify') {
      goals.push([
        `${FRAMEWORKS[fw].label}, Floodgate Redis >= 0.80x bare`,
        `${fmtBoth(x)}; ${FRAMEWORKS[fw].peerRedis}: ${fmtRatio(p.perSecond)} (CPU ${fmtRatio(p.cpu)})`,
        verdict(x.perSecond >= 0.8, x.cpu >= 0.8),
      ])
    } else {
      goals.push([
        `${FRAMEWORKS[fw].label}, Floodgate Redis above ${FRAMEWORKS[fw].peerRedis}`,
        `${fmtRatio(x.perSecond)} vs ${fmtRatio(p.perSecond)} of bare req/s (CPU per request: ${fmtRatio(x.cpu)} vs ${fmtRatio(p.cpu)})`,
        verdict(x.perSecond > p.perSecond, x.cpu > p.cpu),
      ])
    }
  }
  for (const fw of FW) {
    const refuse = throughput[fw]['fg-refuse']
    const q = med(refuse, 'perSecondXPass')
    const c = med(refuse, 'cpuXPass')
    goals.push([
      `${FRAMEWORKS[fw].label}, Floodgate refusal path >= pass path`,
      `refusal/pass ${fmtRatio(q)} req/s (pass CPU/req ÷ refusal CPU/req: ${fmtRatio(c)})`,
      verdict(q >= 1, c >= 1),
    ])
  }
  for (const fw of FW) {
    const row = pipelinedRows.find((x) => x.framework === fw && x.limiter === 'floodgate')
    const passed = row.tries.map((t) => t.counts[200] ?? 0)
    goals.push([
      `${FRAMEWORKS[fw].label}, exactly ${CONFIG.pipelined.limit} of ${CONFIG.pipelined.count} pipelined pass`,
      `${passed.join(', ')} passed (${row.tries.length} ${row.tries.length === 1 ? 'try' : 'tries'})`,
      passed.every((n) => n === CONFIG.pipelined.limit) && row.tries.every((t) => t.complete)
        ? 'met'
        : 'NOT met',
    ])
  }
  out.push(mdTable(['goal', 'measured', ''], goals))
  out.push('')

  // Throughput tables.
  out.push('### Requests per second and server CPU per request')
  out.push('')
  out.push(
    `A hello-world route (\`GET /\` answering \`Hello, world!\`), ${CONFIG.connections} keep-alive ` +
      'connections from this process, one request in flight on each (a minimal HTTP/1.1 client on ' +
      '`node:net`, cheaper per request than autocannon, so the server gets as much of the 2 cores as it ' +
      'can). Per framework, one server process per configuration, all started together; each is warmed up ' +
      `under the same load until it has answered ${fmtCount(CONFIG.warmupRequests)} requests (${CONFIG.warmupMs} ` +
      `to ${CONFIG.warmupMaxMs} ms; JIT), then all are measured in ${CONFIG.cycles} cycles, every ` +
      `cycle giving every server one slice of ${CONFIG.sliceMs} ms (after ${CONFIG.settleMs} ms for the new ` +
      'connections to settle), in a rotating order, so that bursts of other work on the machine fall on every ' +
      'configuration alike. A cell is the median slice, ± half the interquartile range; `x bare` is the ' +
      "median over cycles of the ratio to bare's slice in the same cycle. CPU = the server process's " +
      '`process.cpuUsage()` (user + system, all threads) over the slice, reported over IPC, divided by the ' +
      "responses; it leaves out the load generator and Redis's own CPU, and moves less than req/s when " +
      'other processes take the cores. ' +
      `Pass rows: ${fmtCount(CONFIG.passLimit)} per minute per IP, nothing is refused; refusal rows: 1 per ` +
      'minute, so every measured response is a 429. Every limiter keys by client address (all ' +
      '127.0.0.1: one hot key). Redis: 127.0.0.1:6379, one ioredis client per server, ' +
      `\`${JSON.stringify({ enableAutoPipelining: CONFIG.redis.enableAutoPipelining })}\` for every ` +
      'contender, keys under a prefix per server, deleted after it by SCAN + DEL.',
  )
  out.push('')
  out.push(
    "**1.0x = the same framework bare, in this run.** `x bare` = this row's req/s ÷ bare's; `CPU x bare` = " +
      "bare's CPU µs per request ÷ this row's (below 1.0 = more server CPU per request than bare).",
  )
  out.push('')
  for (const fw of FW) {
    out.push(`#### ${FRAMEWORKS[fw].label}`)
    out.push('')
    const rows = CONFIGS.filter((c) => has(fw, c.id)).map((c) => {
      const cell = throughput[fw][c.id]
      const x = ratios(throughput, fw, c.id)
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
    out.push(
      mdTable(
        [
          'configuration',
          r('req/s'),
          r('±'),
          r('x bare'),
          r('CPU µs/req'),
          r('±'),
          r('CPU x bare'),
          r('p50 / p99 ms'),
          'responses (all slices)',
        ],
        rows,
      ),
    )
    out.push('')
  }

  // Refusal vs pass.
  out.push('### Refusal path against pass path')
  out.push('')
  out.push(
    '**1.0x = the same limiter on its pass path** (memory store, same framework, this run). `refusal/pass` ' +
      "= refusal req/s ÷ pass req/s; `CPU` = pass CPU µs per request ÷ refusal's (both paired within a " +
      'cycle, median over cycles). At or above 1.0 the refusal costs no more than a pass.',
  )
  out.push('')
  const rp = []
  for (const fw of FW) {
    for (const [pass, refuse] of [
      ['fg-memory', 'fg-refuse'],
      ['peer-memory', 'peer-refuse'],
    ]) {
      const p = throughput[fw][pass]
      const q = throughput[fw][refuse]
      rp.push([
        FRAMEWORKS[fw].label,
        p.label.replace(/, memory( driver)?$/, ''),
        fmtCount(p.perSecond.median),
        fmtCount(q.perSecond.median),
        fmtRatio(q.perSecondXPass.median),
        p.cpuUsPerRequest.median.toFixed(1),
        q.cpuUsPerRequest.median.toFixed(1),
        fmtRatio(q.cpuXPass.median),
      ])
    }
  }
  out.push(
    mdTable(
      [
        'framework',
        'limiter (memory)',
        r('pass req/s'),
        r('refusal req/s'),
        r('refusal/pass'),
        r('pass CPU µs'),
        r('refusal CPU µs'),
        r('CPU'),
      ],
      rp,
    ),
  )
  out.push('')

  // Pipelined.
  out.push(`### ${CONFIG.pipelined.count} pipelined requests on one connection`)
  out.push('')
  out.push(
    `${CONFIG.pipelined.count} \`GET /\` requests written in one \`socket.write\` on one fresh connection to a ` +
      `fresh server, limit ${CONFIG.pipelined.limit} per minute per IP (memory stores), then the ` +
      `${CONFIG.pipelined.count} responses' status lines read in order. Exactly ${CONFIG.pipelined.limit} ` +
      `should be 200. Each limiter tried ${CONFIG.pipelined.repeats} time(s), each try on a fresh server (bare once, ` +
      'as a check of the client); a cell lists every try.',
  )
  out.push('')
  out.push(
    mdTable(
      ['framework', 'limiter', r('200'), r('429'), r('other'), 'all responses read?', 'exact?'],
      pipelinedRows.map((row) => {
        const list = (f) => row.tries.map(f).join(', ')
        const exact =
          row.limiter === 'none'
            ? row.tries.every((t) => (t.counts[200] ?? 0) === CONFIG.pipelined.count)
            : row.tries.every((t) => (t.counts[200] ?? 0) === CONFIG.pipelined.limit && t.complete)
        return [
          FRAMEWORKS[row.framework].label,
          row.label,
          list((t) => t.counts[200] ?? 0),
          list((t) => t.counts[429] ?? 0),
          list((t) => t.received - (t.counts[200] ?? 0) - (t.counts[429] ?? 0)),
          list((t) => (t.complete ? 'yes' : `no (${t.why})`)),
          row.limiter === 'none'
            ? exact
              ? `all ${CONFIG.pipelined.count} 200`
              : 'NO'
            : exact
              ? 'yes'
              : 'no',
        ]
      }),
    ),
  )
  out.push('')

  out.push(
    "How each server is configured (`limit` = the row's quota per minute; peers with their default headers):",
  )
  out.push('')
  for (const fw of FW) {
    for (const c of CONFIGS.filter((x) => has(fw, x.id) && !x.id.endsWith('refuse'))) {
      out.push(`- ${FRAMEWORKS[fw].label}, ${throughput[fw][c.id].label}: \`${throughput[fw][c.id].how}\``)
    }
  }
  if (fs.existsSync(path.join(resultsDir, 'http.profile.md'))) {
    out.push('')
    out.push(
      'Where a Floodgate server spends its time: `bench/results/http.profile.md` (`node bench/suites/http.mjs --profile`).',
    )
  }
  return out.join('\n')
}

function builds() {
  return ['@floodgate/express', '@floodgate/fastify', '@floodgate/koa', '@floodgate/redis'].map((p) =>
    buildOf(p),
  )
}

async function main() {
  const started = Date.now()
  const meta = {
    ...machine(),
    command: commandLine(),
    quick,
    config: CONFIG,
    floodgate: buildOf(),
    adapters: builds(),
  }
  const redis = await connectRedis()
  log(
    `${FW.length} frameworks x ${CONFIGS.length - (redis ? 0 : 2)} configurations: warm-up to ${fmtCount(CONFIG.warmupRequests)} requests, ` +
      `${CONFIG.cycles} cycles of ${CONFIG.sliceMs} ms slices, ${CONFIG.connections} connections; load average ${meta.loadavg.join(' / ')}`,
  )
  let throughput
  let pipelinedRows
  try {
    throughput = await measureThroughput(redis)
    log(`pipelined: ${CONFIG.pipelined.count} requests on one connection, limit ${CONFIG.pipelined.limit}`)
    pipelinedRows = await measurePipelined()
  } finally {
    if (redis) {
      const left = await deleteKeys(redis, `${PREFIX}:`)
      if (left) log(`deleted ${left} leftover Redis keys under ${PREFIX}:`)
      redis.disconnect()
    }
  }
  meta.elapsedMs = Date.now() - started
  meta.loadavgEnd = machine().loadavg
  const end = [buildOf(), ...builds()]
  meta.rebuiltDuringRun = end.some((x, i) => x.sha256 !== [meta.floodgate, ...meta.adapters][i].sha256)
  if (meta.rebuiltDuringRun) log('WARNING: a package was rebuilt during the run; rerun on a stable build')
  const data = { meta, throughput, pipelined: pipelinedRows }
  const files = writeResults('http', render(data), data)
  log(`wrote ${files.md} and ${files.json} in ${Math.round(meta.elapsedMs / 1000)} s`)
}

/** --profile: Floodgate's servers under the same load with `node --cpu-prof`; where their time goes. */
async function profile() {
  const started = Date.now()
  const meta = {
    ...machine(),
    command: commandLine(),
    config: CONFIG,
    floodgate: buildOf(),
    adapters: builds(),
  }
  const redis = await connectRedis()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fg-http-prof-'))
  const ids = ['bare', 'fg-memory', 'fg-refuse', ...(redis ? ['fg-redis'] : [])]
  const runs = []
  try {
    for (const framework of FW) {
      for (const id of ids) {
        const config = CONFIGS.find((c) => c.id === id)
        const name = `${framework}-${id}.cpuprofile`
        const res = await measure(specOf(framework, config, 'prof'), {
          redis,
          measureMs: CONFIG.profileMs,
          profileFile: path.join(dir, name),
        })
        const summary = summarizeProfile(path.join(dir, name))
        runs.push({ framework, id, label: labelOf(framework, config), res, summary })
        log(
          `profiled ${framework} ${id}: ${fmtCount(res.perSecond)} req/s, ${res.cpuUsPerRequest.toFixed(1)} µs/req ` +
            `(profiler on); ${summary.areas
              .slice(0, 6)
              .map((a) => `${a.area} ${Math.round(a.inclusiveShare * 100)}%`)
              .join(', ')}`,
        )
      }
    }
  } finally {
    if (redis) {
      await deleteKeys(redis, `${PREFIX}:`)
      redis.disconnect()
    }
  }
  meta.elapsedMs = Date.now() - started
  meta.loadavgEnd = machine().loadavg
  meta.profiles = dir
  const out = []
  out.push('## HTTP servers: where the time goes (CPU profiles)')
  out.push('')
  out.push(
    `Profiled ${meta.date}, Node ${meta.node}, load average ${meta.loadavg.join(' / ')} at the start and ` +
      `${meta.loadavgEnd.join(' / ')} at the end. \`${meta.command}\`: each server under the suite's load ` +
      `(${CONFIG.connections} connections), warmed up to ${fmtCount(CONFIG.warmupRequests)} requests, then ` +
      `profiled for ${CONFIG.profileMs} ms with V8's CPU profiler (the one \`node --cpu-prof\` uses, started and ` +
      'stopped through `node:inspector` in the server process so that start-up and warm-up stay out; 200 µs ' +
      'sampling). Shares are of ' +
      "the process's non-idle samples; inclusive = samples with a frame of that area anywhere on the stack " +
      '(an area can be inside another: Floodgate runs inside the framework). Floodgate frames are mapped to ' +
      'their TypeScript source through the dist source maps. The profiler slows the server; read shares, ' +
      'not req/s.',
  )
  out.push('')
  const pct = (x) => `${(x * 100).toFixed(1)}%`
  for (const framework of FW) {
    out.push(`### ${FRAMEWORKS[framework].label}`)
    out.push('')
    const mine = runs.filter((x) => x.framework === framework)
    const areas = [...new Set(mine.flatMap((x) => x.summary.areas.map((a) => a.area)))]
    out.push(
      mdTable(
        ['area (inclusive / self)', ...mine.map((x) => ({ title: x.label, align: 'right' }))],
        [
          ['req/s with the profiler on', ...mine.map((x) => fmtCount(x.res.perSecond))],
          ['CPU µs/request with the profiler on', ...mine.map((x) => x.res.cpuUsPerRequest.toFixed(1))],
          [
            "**Floodgate's own code** (self time in @floodgate/* frames), share and µs/request",
            ...mine.map((x) => {
              const share = x.summary.areas
                .filter((a) => a.area.startsWith('@floodgate/'))
                .reduce((sum, a) => sum + a.selfShare, 0)
              return x.id === 'bare' ? '' : `${pct(share)} = ${(share * x.res.cpuUsPerRequest).toFixed(1)} µs`
            }),
          ],
          [
            '**`writev`** (socket writes: on loopback the kernel TCP path runs inside it), share and µs/request',
            ...mine.map((x) => {
              const w = x.summary.selfAll?.find((f) => f.name === 'writev')?.share ?? 0
              return `${pct(w)} = ${(w * x.res.cpuUsPerRequest).toFixed(1)} µs`
            }),
          ],
          ...areas.map((area) => [
            area,
            ...mine.map((x) => {
              const a = x.summary.areas.find((y) => y.area === area)
              return a ? `${pct(a.inclusiveShare)} / ${pct(a.selfShare)}` : ''
            }),
          ]),
        ],
      ),
    )
    out.push('')
    for (const x of mine.filter((y) => y.id !== 'bare')) {
      out.push(`Top self time, ${x.label}:`)
      out.push('')
      out.push(
        mdTable(
          ['function', 'area', { title: 'self', align: 'right' }],
          x.summary.self.slice(0, 15).map((s) => [s.name, s.area, pct(s.share)]),
        ),
      )
      out.push('')
      const fg = x.summary.self.filter((s) => s.area.startsWith('@floodgate/'))
      if (fg.length) {
        out.push(
          `Floodgate functions among the top ${x.summary.self.length}: ${fg.map((s) => `${s.name} ${pct(s.share)}`).join('; ')}.`,
        )
        out.push('')
      }
    }
  }
  const json = { meta, runs: runs.map(({ res, ...rest }) => ({ ...rest, res: { ...res } })) }
  fs.mkdirSync(resultsDir, { recursive: true })
  fs.writeFileSync(path.join(resultsDir, 'http.profile.md'), `${out.join('\n').trimEnd()}\n`)
  fs.writeFileSync(path.join(resultsDir, 'http.profile.json'), `${JSON.stringify(json, null, 2)}\n`)
  log(
    `wrote bench/results/http.profile.md (profiles kept in ${dir}) in ${Math.round(meta.elapsedMs / 1000)} s`,
  )
}

if (args.profile) await profile()
else await main()
