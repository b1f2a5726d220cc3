/**
 * The measuring loop. Per framework: start one server per configuration (each its own process), warm each up
 * under load, then `cycles` times visit every server for one measured slice, in a rotating order. Short
 * slices interleaved over the same minute share the background load of the machine alike, which long
 * back-to-back runs on a busy 2-core machine do not; ratios are taken within a cycle (a configuration against
 * bare measured seconds apart) and their median is reported (summarize-throughput.mjs).
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
  for (const framework of FRAMEWORK_IDS) {
    results[framework] = {}
    const servers = []
    try {
      for (const configuration of configurations) {
        const spec = serverSpec(settings, { framework, configuration, runPrefix, round: 0 })
        servers.push({ configuration, spec, server: await spawnServer(spec) })
        results[framework][configuration.id] = { slices: [] }
      }
      await warmUpAll(framework, servers, settings)
      for (let c = 0; c < settings.cycles; c++) {
        const shift = c % servers.length
        const order = [...servers.slice(shift), ...servers.slice(0, shift)]
        const line = []
        for (const s of order) {
          const res = await measureSlice(s.server, settings, { redisUsage: redis?.usage })
          res.cycle = c
          results[framework][s.configuration.id].slices.push(res)
          line.push(`${s.configuration.id} ${fmtCount(res.perSecond)}/s ${res.cpuUsPerRequest.toFixed(0)}µs`)
          if (res.errors || res.reconnects)
            log(`${framework} ${s.configuration.id}: ${res.errors} errors, ${res.reconnects} reconnects`)
        }
        log(
          `${framework.padEnd(7)} cycle ${c + 1}/${settings.cycles} (load ${os.loadavg()[0].toFixed(2)}): ${line.join(', ')}`,
        )
      }
    } finally {
      for (const s of servers) {
        await s.server.stop()
        if (s.spec.store === 'redis' && redis) await redis.deleteKeys(s.spec.prefix)
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
