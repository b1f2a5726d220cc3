/**
 * The measuring loop. Per framework, `processes` times over: start one fresh server per configuration (each
 * its own process), warm each up under load, then `cycles / processes` times visit every server for one
 * measured slice, in a rotating order; then stop them. Short slices interleaved over the same minute share the
 * background load of the machine alike, which long back-to-back runs on a busy 2-core machine do not; ratios
 * are taken within a cycle (a configuration against bare measured seconds apart) and their median is reported
 * (summarize-throughput.mjs). Fresh processes because one server process's own state (what its JIT made of the
 * code, where its heap's collections fall) moved a cell by more than the differences measured: two quiet runs
 * with one process per configuration put Floodgate's added CPU on Fastify at +6.2 and +32.1 µs per request.
 */
import os from 'node:os'
import { fmtCount } from '../../lib/format.mjs'
import { CONFIGURATIONS, FRAMEWORK_IDS, serverSpec } from './config.mjs'
import { log } from './log.mjs'
import { measureSlice, warmUp } from './measure-slice.mjs'
import { spawnServer } from './server-process.mjs'
import { summarizeFramework } from './summarize-throughput.mjs'

/** `redis`: the Redis target (redis-target.mjs), or undefined to leave the Redis rows out. */
export async function measureThroughput({ settings, runPrefix, redis }) {
  const configurations = CONFIGURATIONS.filter((c) => c.store !== 'redis' || redis)
  const results = {}
  const processes = Math.max(1, Math.min(settings.processes, settings.cycles))
  for (const framework of FRAMEWORK_IDS) {
    results[framework] = {}
    for (const configuration of configurations) results[framework][configuration.id] = { slices: [] }
    for (let round = 0, cycle = 0; round < processes; round++) {
      const servers = []
      try {
        for (const configuration of configurations) {
          const spec = serverSpec(settings, { framework, configuration, runPrefix, round })
          servers.push({ configuration, spec, server: await spawnServer(spec) })
        }
        await warmUpAll(framework, servers, settings)
        const cycles = Math.round((settings.cycles * (round + 1)) / processes) - cycle
        for (let c = 0; c < cycles; c++, cycle++) {
          const shift = cycle % servers.length
          const order = [...servers.slice(shift), ...servers.slice(0, shift)]
          const line = []
          for (const s of order) {
            const res = await measureSlice(s.server, settings, { redisUsage: redis?.usage })
            res.cycle = cycle
            res.process = round
            results[framework][s.configuration.id].slices.push(res)
            line.push(
              `${s.configuration.id} ${fmtCount(res.perSecond)}/s ${res.cpuUsPerRequest.toFixed(0)}µs`,
            )
            if (res.errors || res.reconnects)
              log(`${framework} ${s.configuration.id}: ${res.errors} errors, ${res.reconnects} reconnects`)
          }
          log(
            `${framework.padEnd(7)} cycle ${cycle + 1}/${settings.cycles}, processes ${round + 1}/${processes} ` +
              `(load ${os.loadavg()[0].toFixed(2)}): ${line.join(', ')}`,
          )
        }
      } finally {
        for (const s of servers) {
          await s.server.stop()
          if (s.spec.store === 'redis' && redis) await redis.deleteKeys(s.spec.prefix)
        }
      }
    }
    summarizeFramework(results[framework], framework, configurations)
  }
  return results
}

async function warmUpAll(framework, servers, settings) {
  log(
    `${framework}: ${servers.length} servers up; warming each up to ${fmtCount(settings.warmupRequests)} ` +
      `requests (${settings.warmupMs}-${settings.warmupMaxMs} ms)`,
  )
  for (const s of servers) {
    const warm = await warmUp(s.server, settings)
    log(
      `${framework.padEnd(7)} warm-up ${s.configuration.id.padEnd(11)} ${fmtCount(warm.responses)} requests in ` +
        `${Math.round(warm.elapsedMs)} ms, last ${fmtCount(warm.lastPerSecond)} req/s`,
    )
  }
}
