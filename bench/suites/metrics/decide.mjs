/**
 * One measurement of the metrics suite, in a child process of its own: a limiter (core's
 * createRateLimitHandler on its MemoryStore, or on a RedisStore) deciding one client's requests, with metrics
 * off, through prom-client, or through the OpenTelemetry SDK; either the CPU time per decision, or the heap
 * bytes allocated per decision (with the young generation large enough that no GC runs while it is measured).
 * On the RedisStore the sink is the limiter's and the store's, so each decision also records the store call's
 * duration (`floodgate_store_duration_seconds`).
 */
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { metricsSink } from '../../lib/metrics-sink.mjs'

/** What each sink is made of; `baseline` is a core build without the metrics hook (`--baseline <dist>`). */
const sinkOf = (sink) => (sink === 'off' || sink === 'baseline' ? undefined : metricsSink(sink))

/** The policies of a scenario: one (the short form), or three layered, each at a quota nobody reaches. */
function optionsOf(core, policies) {
  if (policies === 1 || policies === 'redis') return { limit: 1e9, window: '1m' }
  if (policies === 'async') return { limit: 1e9, window: '1m', store: behindPromises(new core.MemoryStore()) }
  const { fixedWindow, slidingWindowCounter, tokenBucket } = core
  return {
    limits: [
      { name: 'ip', key: 'ip', algorithm: tokenBucket({ capacity: 1e9, refillRate: 1e9, interval: '1m' }) },
      { name: 'minute', key: 'ip', algorithm: slidingWindowCounter({ limit: 1e9, window: '1m' }) },
      { name: 'global', key: 'global', algorithm: fixedWindow({ limit: 1e9, window: '1m' }) },
    ],
  }
}

/**
 * A MemoryStore answering through promises, as a remote store does (the handler then records the outcome in a
 * `.then`), without a network: what the limiter's metrics cost on a remote store's path, alone.
 */
function behindPromises(store) {
  return {
    consume: (...args) => Promise.resolve(store.consume(...args)),
    consumeAll: (...args) => Promise.resolve(store.consumeAll(...args)),
    peek: (...args) => Promise.resolve(store.peek(...args)),
    refund: (...args) => Promise.resolve(store.refund(...args)),
    reset: (...args) => Promise.resolve(store.reset(...args)),
  }
}

/** Store calls that failed (`onError`): a measurement is of the path where Redis answers, or it is thrown away. */
let failures = 0

/**
 * A RedisStore on the redis-server at `redis` (`{ host, port, prefix }`), its client set as the http suite's
 * (bench/suites/http/config.mjs), reporting to `metrics` when it is given. Its time bound is a minute: under
 * valgrind a garbage collection can take seconds, and a decision taken by the fail mode is not the path
 * measured (the bound is a timer either way, whatever its length).
 */
async function redisStore(redis, metrics) {
  const { Redis } = await import('ioredis')
  const { RedisStore } = await import('@floodgate/redis')
  const client = new Redis({ host: redis.host, port: redis.port, enableAutoPipelining: true })
  await client.ping()
  return new RedisStore({
    client,
    prefix: redis.prefix,
    timeoutMs: 60_000,
    onError: () => {
      failures++
    },
    ...(metrics ? { metrics } : {}),
  })
}

/**
 * A limiter for `sink` and `policies` (1, 3, or `'redis'`: one policy on a RedisStore at `redis`), and one
 * request to decide over and over.
 */
export async function limiterOf({ sink, policies, baseline, redis }) {
  const core =
    sink === 'baseline' ? await import(pathToFileURL(baseline).href) : await import('@floodgate/core')
  // The handler is `@floodgate/core/internal`'s (a build older than that has it in its index).
  const internal =
    sink === 'baseline'
      ? await import(pathToFileURL(baseline.replace(/index\.js$/, 'internal.js')).href)
      : await import('@floodgate/core/internal')
  const createRateLimitHandler = internal.createRateLimitHandler ?? core.createRateLimitHandler
  const metrics = await sinkOf(sink)
  const handler = createRateLimitHandler({
    ...optionsOf(core, policies),
    ...(policies === 'redis' ? { store: await redisStore(redis, metrics) } : {}),
    ...(metrics ? { metrics } : {}),
  })
  const info = { ip: '203.0.113.7', method: 'GET', route: '/', path: '/', headers: {}, native: {} }
  return async (n) => {
    for (let i = 0; i < n; i++) {
      const outcome = await handler.handle(info)
      if (outcome.kind !== 'pass')
        throw new Error('a decision was refused: the quota is meant to be out of reach')
    }
    if (failures > 0)
      throw new Error(`${failures} store calls failed: Redis must answer every decision measured`)
  }
}

/** CPU µs (user + system) per decision over `n` decisions, after `warmup`. */
export async function cpuPerDecision(decide, { warmup, n }) {
  await decide(warmup)
  const before = process.cpuUsage()
  await decide(n)
  const used = process.cpuUsage(before)
  return (used.user + used.system) / n
}

/**
 * Heap bytes allocated per decision: `heapUsed` grows by what `n` decisions allocate when no GC runs in
 * between (the suite starts this child with a young generation larger than that). The median of `windows`
 * such windows; a window during which a GC ran is measured again, at most 5 times, else NaN.
 */
export async function bytesPerDecision(decide, { warmup, n, windows = 5 }) {
  await decide(warmup)
  const starts = []
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) starts.push(entry.startTime)
  })
  observer.observe({ entryTypes: ['gc'] })
  const settle = () => new Promise((resolve) => setTimeout(resolve, 20)) // GC entries arrive a little later
  const window = async () => {
    for (let attempt = 0; attempt < 5; attempt++) {
      globalThis.gc()
      globalThis.gc()
      await settle()
      const from = performance.now()
      const before = process.memoryUsage().heapUsed
      await decide(n)
      const after = process.memoryUsage().heapUsed
      const to = performance.now()
      await settle()
      if (!starts.some((t) => t >= from && t <= to)) return (after - before) / n
    }
    return Number.NaN
  }
  try {
    const values = []
    for (let i = 0; i < windows; i++) values.push(await window())
    const finite = values.filter(Number.isFinite).sort((a, b) => a - b)
    return finite.length === 0 ? Number.NaN : finite[Math.floor(finite.length / 2)]
  } finally {
    observer.disconnect()
  }
}
