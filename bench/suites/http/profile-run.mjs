/**
 * `--profile`: Floodgate's servers (and bare, for comparison) under the suite's load with V8's CPU profiler
 * on over one measured window; writes bench/results/http.profile.{md,json}. The profiles are kept in a
 * temporary directory.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { machine, resultsDir } from '../../lib/env.mjs'
import { fmtCount } from '../../lib/format.mjs'
import { configurationOf, FRAMEWORK_IDS, labelOf, serverSpec } from './config.mjs'
import { log } from './log.mjs'
import { measureSlice, warmUp } from './measure-slice.mjs'
import { summarizeProfile } from './profile.mjs'
import { renderProfileReport } from './render/profile-report.mjs'
import { spawnServer } from './server-process.mjs'

/** One server on its own: fresh process, warm-up, one measured window with the profiler on, stop, clean up. */
async function profileOne(spec, { settings, redis, profileFile }) {
  const server = await spawnServer(spec)
  await warmUp(server, settings)
  await server.profile()
  const res = await measureSlice(server, settings, { ms: settings.profileMs })
  await server.profile(profileFile)
  res.exit = await server.stop()
  if (spec.store === 'redis' && redis) res.redisKeysDeleted = await redis.deleteKeys(spec.prefix)
  return res
}

/** `meta`: the run's meta (machine, command, settings as `config`, builds); `redis`: the Redis target. */
export async function profileServers({ meta, settings, runPrefix, redis }) {
  const started = Date.now()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fg-http-prof-'))
  const ids = ['bare', 'fg-memory', 'fg-refuse', ...(redis ? ['fg-redis'] : [])]
  const runs = []
  for (const framework of FRAMEWORK_IDS) {
    for (const id of ids) {
      const configuration = configurationOf(id)
      const file = path.join(dir, `${framework}-${id}.cpuprofile`)
      const spec = serverSpec(settings, { framework, configuration, runPrefix, round: 'prof' })
      const res = await profileOne(spec, { settings, redis, profileFile: file })
      const summary = summarizeProfile(file)
      runs.push({ framework, id, label: labelOf(framework, configuration), res, summary })
      log(
        `profiled ${framework} ${id}: ${fmtCount(res.perSecond)} req/s, ${res.cpuUsPerRequest.toFixed(1)} µs/req ` +
          `(profiler on); ${summary.areas
            .slice(0, 6)
            .map((a) => `${a.area} ${Math.round(a.inclusiveShare * 100)}%`)
            .join(', ')}`,
      )
    }
  }
  const done = { ...meta, elapsedMs: Date.now() - started, loadavgEnd: machine().loadavg, profiles: dir }
  const json = { meta: done, runs: runs.map(({ res, ...rest }) => ({ ...rest, res })) }
  fs.mkdirSync(resultsDir, { recursive: true })
  fs.writeFileSync(path.join(resultsDir, 'http.profile.md'), `${renderProfileReport(json).trimEnd()}\n`)
  fs.writeFileSync(path.join(resultsDir, 'http.profile.json'), `${JSON.stringify(json, null, 2)}\n`)
  log(
    `wrote bench/results/http.profile.md (profiles kept in ${dir}) in ${Math.round(done.elapsedMs / 1000)} s`,
  )
}
