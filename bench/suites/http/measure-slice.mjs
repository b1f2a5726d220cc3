/**
 * The measuring loop's two steps on one running server: warm it up under load, and measure one slice
 * (responses, the server's CPU and, when the suite runs its own Redis, Redis's CPU and commands).
 */
import os from 'node:os'
import { usageBetween } from '../../lib/redis-server.mjs'
import { percentile, sorted } from '../../lib/stats.mjs'
import { startLoad } from './client.mjs'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * One measured slice: open the connections, let them settle, then count responses and the server's CPU over
 * `ms`; close the connections. `redisUsage` (optional) reads the suite's own Redis at the same two moments
 * as the server's CPU, so what Redis did in between goes with the same responses. (The counters start and
 * stop once the server has answered its CPU reading over IPC, which its event loop handles behind the
 * requests it already holds: the responses counted are, near enough, those of the commands Redis ran.)
 */
export async function measureSlice(server, settings, { ms = settings.sliceMs, redisUsage } = {}) {
  const load = startLoad({ port: server.port, connections: settings.connections })
  await sleep(settings.settleMs)
  const [c0, r0] = await Promise.all([server.cpu(), redisUsage?.()])
  const loadCpu = process.cpuUsage()
  load.reset()
  await sleep(ms)
  const [c1, r1] = await Promise.all([server.cpu(), redisUsage?.()])
  const loadUsed = process.cpuUsage(loadCpu)
  const snap = load.snapshot()
  await load.stop()
  const lat = sorted(snap.latencies)
  const slice = {
    perSecond: snap.responses / (snap.elapsedMs / 1000),
    cpuUsPerRequest: (c1.cpuUs - c0.cpuUs) / snap.responses,
    // The same, split: the process's own code (V8, Node, the framework, the limiter) and the kernel's (on
    // loopback, the socket writes run the TCP path of both ends).
    userUsPerRequest: (c1.user - c0.user) / snap.responses,
    systemUsPerRequest: (c1.system - c0.system) / snap.responses,
    serverCpuShare: (c1.cpuUs - c0.cpuUs) / 1000 / snap.elapsedMs,
    // The load generator's CPU (this process's) over the same window: near one CPU, it held the server back.
    loadCpuUs: loadUsed.user + loadUsed.system,
    responses: snap.responses,
    statuses: snap.statuses,
    p50Ms: percentile(lat, 50),
    p99Ms: percentile(lat, 99),
    reconnects: snap.reconnects,
    errors: snap.errors,
    elapsedMs: snap.elapsedMs,
    loadavg1: Math.round(os.loadavg()[0] * 100) / 100,
  }
  if (r0 && r1) {
    const redis = usageBetween(r0, r1)
    slice.redisCpuUs = redis.cpuUs
    slice.redisCommands = redis.commands
    slice.redisCommandUs = redis.commandUs
    slice.redisCommandCalls = redis.calls
  }
  return slice
}

/** Load a server until it has answered `warmupRequests` (within `warmupMs`..`warmupMaxMs`). */
export async function warmUp(server, settings) {
  const load = startLoad({ port: server.port, connections: settings.connections })
  const started = Date.now()
  let last = { responses: 0, elapsedMs: 0 }
  let lastPerSecond = 0
  for (;;) {
    await sleep(250)
    const snap = load.snapshot()
    lastPerSecond = ((snap.responses - last.responses) / (snap.elapsedMs - last.elapsedMs)) * 1000
    last = snap
    const elapsed = Date.now() - started
    if (elapsed >= settings.warmupMaxMs) break
    if (elapsed >= settings.warmupMs && snap.responses >= settings.warmupRequests) break
  }
  await load.stop()
  return { responses: last.responses, elapsedMs: Date.now() - started, lastPerSecond }
}
