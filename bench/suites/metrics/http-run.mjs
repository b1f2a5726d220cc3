/**
 * The metrics suite's `--instructions` mode, under valgrind's callgrind:
 *   - what the metrics code itself costs, counted where nothing else runs: core's handler deciding on the
 *     MemoryStore and on a MemoryStore behind promises (the limiter's recorder, ./decide-loop.mjs), and one
 *     store call timed for the store-duration histogram (./store-call-loop.mjs), metrics off and each sink;
 *   - instructions per HTTP request for every framework, store and sink (./http-count.mjs), where the server's
 *     own work (JIT, garbage collection) spreads the count by more than the metrics cost;
 *   - this machine's rate (instructions per µs of CPU) from the HTTP loops run without valgrind, metrics off.
 * Starts a redis-server of its own for the RedisStore rows. `resume` (a JSON file) keeps what was counted
 * and is written as each count ends, so a run cut short goes on where it stopped.
 */
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { machine } from '../../lib/env.mjs'
import { startPrivateRedis } from '../../lib/redis-server.mjs'
import { median } from '../../lib/stats.mjs'
import { countDecisions, DECIDE_SINKS } from './decide-count.mjs'
import { callgrindMarks, countAll, cpuSlices, HTTP_FRAMEWORKS, HTTP_STORES, loopSpec } from './http-count.mjs'

const STORE_CALL_LOOP = fileURLToPath(new URL('./store-call-loop.mjs', import.meta.url))

async function redisVersion({ host, port }) {
  const { Redis } = await import('ioredis')
  const client = new Redis({ host, port })
  try {
    return /^redis_version:(\S+)/m.exec(await client.call('INFO', 'server'))?.[1] ?? 'unknown'
  } finally {
    client.disconnect()
  }
}

/** Instructions and heap bytes per timed store call, metrics off or through `sink`. */
async function countStoreCall(sink, { warmup, n }) {
  const { stdout, dumps } = await callgrindMarks([STORE_CALL_LOOP, sink, String(warmup), String(n)], {
    env: { REQUEST_LOOP_INSTRUMENT: '1' },
    marks: 2,
    name: `store-call-${sink}`,
  })
  const [before, after] = JSON.parse(stdout.trim().split('\n').at(-1)).heapAtMarks
  return { n, total: dumps[0].total / n, program: dumps[0].program / n, bytes: (after - before) / n }
}

/** CPU µs per request of `spec` without valgrind: per run the mean over its slices; `runs` runs. */
async function cpuRuns(spec, config) {
  const runs = []
  for (let r = 0; r < config.rateRuns; r++) {
    const slices = await cpuSlices(spec, {
      warmup: config.rateWarmup,
      n: config.rateN,
      slice: config.rateN / 4,
    })
    runs.push(slices.reduce((a, b) => a + b, 0) / slices.length)
  }
  return runs
}

export async function measureHttpInstructions(config, { log, builds, resume }) {
  const saved = resume && fs.existsSync(resume) ? JSON.parse(fs.readFileSync(resume, 'utf8')) : {}
  const data = { counts: {}, components: { storeCall: {}, decide: {} }, rates: {}, ...saved }
  const save = () => resume && fs.writeFileSync(resume, `${JSON.stringify(data, null, 1)}\n`)
  data.meta = { ...machine(), config, builds, ...(saved.meta ? { resumedFrom: saved.meta.date } : {}) }
  const redis = await startPrivateRedis()
  if (!redis) throw new Error('no redis-server could be started: the RedisStore rows need one')
  try {
    data.meta.redisVersion = await redisVersion(redis)
    for (const sink of DECIDE_SINKS) {
      data.components.storeCall[sink] ??= await countStoreCall(sink, config.storeCall)
      log(`store call, ${sink}: ${Math.round(data.components.storeCall[sink].total)} instructions`)
      for (const scenario of ['1', 'async']) {
        data.components.decide[scenario] ??= {}
        data.components.decide[scenario][sink] ??= await countDecisions(sink, scenario, {
          scale: config.decideScale,
        })
        log(
          `decision (${scenario}), ${sink}: ${Math.round(data.components.decide[scenario][sink].total)} instructions`,
        )
        save()
      }
    }
    const missing = (key) => !data.counts[key]
    await countAll({
      redis,
      warmup: config.warmup,
      n: config.n,
      slice: config.slice,
      jobs: config.jobs,
      skip: (key) => !missing(key) || (config.only && !config.only.some((o) => key.includes(o))),
      onCount: (key, c) => {
        data.counts[key] = c
        save()
        log(
          `${key}: ${Math.round(c.total.mean)} instructions per request, ${Math.round(c.program.median)} without V8's runtime`,
        )
      },
    })
    for (const store of HTTP_STORES) {
      for (const framework of HTTP_FRAMEWORKS) {
        const key = `${framework}/${store}`
        if (data.rates[key] || !data.counts[`${key}/off`]) continue
        const spec = loopSpec({
          framework,
          store,
          sink: 'off',
          redis,
          prefix: `fg-bench-rate:${key}:${Date.now()}`,
        })
        const runs = await cpuRuns(spec, config)
        const instructions = data.counts[`${key}/off`].total.mean
        const cpuUs = median(runs)
        data.rates[key] = {
          instructions,
          cpuUs,
          cpuMin: Math.min(...runs),
          cpuMax: Math.max(...runs),
          runs,
          perUs: instructions / cpuUs,
        }
        save()
        log(
          `${key}: ${cpuUs.toFixed(1)} µs per request uninstrumented: ${Math.round(instructions / cpuUs)} instructions per µs`,
        )
      }
    }
    data.meta.loadavgEnd = machine().loadavg
    return data
  } finally {
    await redis.stop()
  }
}
