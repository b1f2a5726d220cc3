/**
 * What the http suite measures: the run's settings (durations, connections, quotas; stored as `meta.config`
 * in bench/results/http.json), the server configurations measured for every framework, and the spec each
 * server process is started with.
 */
import { FRAMEWORKS } from './apps.mjs'

/** The frameworks, in the order of the results. */
export const FRAMEWORK_IDS = Object.keys(FRAMEWORKS)

/** The settings of a full run, of `--quick`, and what the command line overrides. */
export function settingsOf(args) {
  const quick = Boolean(args.quick)
  return {
    // A fresh server needs tens of thousands of requests before its CPU per request settles (JIT): on this busy
    // 2-core machine Express bare went 830 -> 900 -> 2.7k -> 4.4k req/s in 0.7 s steps, and Fastify bare still
    // took 99 µs/request after 2 s of warm-up, 30 µs later. Each server is warmed up until it has answered
    // `warmupRequests`, for at least `warmupMs` and at most `warmupMaxMs`.
    warmupMs: Number(args.warmup ?? (quick ? 300 : 1500)),
    warmupRequests: quick ? 1000 : 30_000,
    warmupMaxMs: quick ? 600 : 7000,
    /** Then every server is measured `cycles` times, `sliceMs` each, in rotation, */
    cycles: Number(args.cycles ?? (quick ? 2 : 8)),
    /** the cycles shared out over this many fresh processes per configuration (one after the other). */
    processes: Number(args.processes ?? (quick ? 1 : 2)),
    sliceMs: Number(args.slice ?? (quick ? 200 : 500)),
    /** New connections settle this long before a slice's counters start. */
    settleMs: quick ? 50 : 150,
    connections: Number(args.connections ?? 50),
    passLimit: 1e9,
    refuseLimit: 1,
    pipelined: { count: 300, limit: 100, repeats: quick ? 1 : 2 },
    /**
     * One ioredis option set for every Redis contender (the redis suite's, too). The port is the shared
     * Redis's until the suite has started a redis-server of its own (see redis-target.mjs).
     */
    redis: { host: '127.0.0.1', port: 6379, enableAutoPipelining: args.pipelining !== 'off' },
    profileMs: Number(args['profile-ms'] ?? 4000),
  }
}

/** The server configurations measured for every framework: a limiter (or none), its store, its quota. */
export const CONFIGURATIONS = [
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
  {
    id: 'fg-metrics',
    limiter: 'floodgate',
    store: 'memory',
    limit: 'pass',
    metrics: 'prometheus',
    label: 'Floodgate, memory, metrics: prometheus()',
  },
  {
    id: 'fg-otel',
    limiter: 'floodgate',
    store: 'memory',
    limit: 'pass',
    metrics: 'opentelemetry',
    label: 'Floodgate, memory, metrics: openTelemetry()',
  },
  {
    id: 'fg-redis-metrics',
    limiter: 'floodgate',
    store: 'redis',
    limit: 'pass',
    metrics: 'prometheus',
    label: 'Floodgate, RedisStore, metrics: prometheus()',
  },
]

/** Floodgate with metrics on, each against the same configuration with metrics off, paired within a cycle. */
export const METRICS_PAIRS = [
  ['fg-memory', 'fg-metrics'],
  ['fg-memory', 'fg-otel'],
  ['fg-redis', 'fg-redis-metrics'],
]

/** Each limiter's pass path and its refusal path, compared within a cycle. */
export const PASS_AND_REFUSAL = [
  ['fg-memory', 'fg-refuse'],
  ['peer-memory', 'peer-refuse'],
]

/** Floodgate's Redis row and the peer's it is compared with. */
export const REDIS_PAIR = ['fg-redis', 'peer-redis']

export const configurationOf = (id) => CONFIGURATIONS.find((c) => c.id === id)

/** The row label of a configuration: the peer's rows are named after the framework's peer. */
export function labelOf(framework, configuration) {
  if (configuration.limiter !== 'peer') return configuration.label
  const f = FRAMEWORKS[framework]
  if (configuration.id === 'peer-memory') return f.peerMemory
  if (configuration.id === 'peer-redis') return f.peerRedis
  return `${f.peerMemory}, refusal path`
}

/**
 * The spec a server process is started with (bench/suites/http/server.mjs); its Redis keys live under
 * `runPrefix:framework:configuration:r<round>`.
 */
export function serverSpec(settings, { framework, configuration, runPrefix, round }) {
  return {
    framework,
    limiter: configuration.limiter,
    store: configuration.store ?? 'memory',
    metrics: configuration.metrics,
    limit: configuration.limit === 'refuse' ? settings.refuseLimit : settings.passLimit,
    prefix: `${runPrefix}:${framework}:${configuration.id}:r${round}`,
    redisOptions: settings.redis,
  }
}
