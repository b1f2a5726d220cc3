// @bench-title Redis stores
// @bench-flags
//
// Floodgate's RedisStore (every algorithm, on ioredis and on node-redis) against the peers' Redis stores,
// against the same local Redis (127.0.0.1:6379), in one run:
//   - decisions per second with 1 and with 256 requests in flight, on 10,000 keys round robin, with a quota
//     nobody reaches (every call admitted, so every store does the same work); with each client the
//     RedisStore takes, side by side with rate-limit-redis on the same client;
//   - commands per decision, from `INFO commandstats` deltas: the commands a client sends (EVALSHA, EVAL,
//     SCRIPT) and the commands the scripts run inside Redis;
//   - the block cache: decisions per second on one hot key that is refused, with and without it.
// Peers: rate-limiter-flexible's RateLimiterRedis, rate-limit-redis (through express-rate-limit's store API:
// init + increment, on ioredis and on node-redis) and @fastify/rate-limit's Redis store (incr). Every
// contender gets its own client (ioredis with the same options; node-redis, which pipelines the commands of
// one tick by itself, with its defaults), and runs in a fresh child process; rounds interleave the contenders.
// Writes bench/results/redis.md and bench/results/redis.json. Imports the built packages: build first
// (`npx turbo run build`).
//
//   node bench/suites/redis.mjs            the full suite (about 3 minutes)
//   node bench/suites/redis.mjs --quick    a smoke run with tiny durations (numbers not representative)
//   node bench/suites/redis.mjs --command-sample 1000 --busy-sample 5000
//                                          fewer decisions counted (a machine so busy that a decision takes ms)

import { createRequire } from 'node:module'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs, runNode, sendResult } from '../lib/child.mjs'
import { commandLine, machine } from '../lib/env.mjs'
import { fmtCount, fmtRatio, fmtSpread, mdTable } from '../lib/format.mjs'
import { readRedisUsage, usageBetween } from '../lib/redis-server.mjs'
import { writeResults } from '../lib/results.mjs'
import { summarize } from '../lib/stats.mjs'

const SELF = fileURLToPath(import.meta.url)
const require = createRequire(import.meta.url)
const args = parseArgs()
const quick = Boolean(args.quick)

const REDIS = { host: '127.0.0.1', port: 6379 }
// One prefix per run, handed to the children, so that the parent can delete every key the run made.
const PREFIX = args.prefix ?? `fgbench:${process.pid}:${Date.now().toString(36)}`
const CONFIG = {
  rounds: Number(args.rounds ?? (quick ? 1 : 3)),
  warmupMs: quick ? 100 : 200,
  measureMs: quick ? 200 : 500,
  keys: 10_000,
  inFlight: [1, 256],
  /**
   * Commands and Redis time per decision: this many sequential decisions, 5 tries interleaving the
   * contenders, the smallest rate per command and the smallest time (a busy machine only adds to either).
   */
  commandSample: Number(args['command-sample'] ?? (quick ? 100 : 4000)),
  /** Redis CPU per decision with 256 in flight: this many decisions, 3 tries interleaving the contenders. */
  busySample: Number(args['busy-sample'] ?? (quick ? 1000 : 20_000)),
  /** One ioredis option set for every contender. */
  client: { enableAutoPipelining: args.pipelining !== 'off' },
  throughput: { limit: 1e9, windowMs: 3_600_000 },
  blocked: { limit: 10, windowMs: 3_600_000 },
}

const FLOODGATE = {
  'floodgate-fw': {
    label: 'Floodgate fixed window',
    make: (c) => c.fixedWindow({ limit: 1e9, window: '1h' }),
  },
  'floodgate-swc': {
    label: 'Floodgate sliding window counter',
    make: (c) => c.slidingWindowCounter({ limit: 1e9, window: '1h' }),
  },
  'floodgate-swl': {
    label: 'Floodgate sliding window log',
    make: (c) => c.slidingWindowLog({ limit: 1e6, window: '1h' }),
  },
  'floodgate-tb': {
    label: 'Floodgate token bucket',
    make: (c) => c.tokenBucket({ capacity: 1e9, refillRate: 1, interval: '1s' }),
  },
  'floodgate-lb': {
    label: 'Floodgate leaky bucket',
    make: (c) => c.leakyBucket({ capacity: 1e9, leakRate: 1, interval: '1s' }),
  },
  'floodgate-gcra': {
    label: 'Floodgate GCRA',
    make: (c) => c.gcra({ rate: 1e6, period: '1s', burst: 1e9 }),
  },
  'floodgate-cq': {
    label: 'Floodgate calendar quota',
    make: (c) => c.calendarQuota({ limit: 1e9, period: 'day' }),
  },
  'floodgate-swc-unbatched': {
    label: 'Floodgate sliding window counter, `batch: false`',
    make: (c) => c.slidingWindowCounter({ limit: 1e9, window: '1h' }),
    options: { batch: false },
  },
}
/** The Floodgate contenders with the default options (batched): the goals are theirs. */
const BATCHED = Object.keys(FLOODGATE).filter((id) => !FLOODGATE[id].options)
const PEERS = {
  rlf: { label: 'rate-limiter-flexible RateLimiterRedis' },
  'rate-limit-redis': { label: 'rate-limit-redis (express-rate-limit store)' },
  fastify: { label: '@fastify/rate-limit RedisStore' },
}
/** The same contenders on node-redis (`createClient()`): `<id>@node-redis`; without the suffix, ioredis. */
const NODE_REDIS = '@node-redis'
const ON_NODE_REDIS = [...Object.keys(FLOODGATE), 'rate-limit-redis'].map((id) => `${id}${NODE_REDIS}`)
const CONTENDERS = [...Object.keys(FLOODGATE), ...Object.keys(PEERS), ...ON_NODE_REDIS]
/** A contender's store, without its client: `floodgate-fw@node-redis` -> `floodgate-fw`. */
const storeOf = (id) => id.replace(NODE_REDIS, '')
const libraryOf = (id) => (id.endsWith(NODE_REDIS) ? 'node-redis' : 'ioredis')
const isFloodgate = (id) => Boolean(FLOODGATE[storeOf(id)])
const isPeer = (id) => !isFloodgate(id)
const labelOf = (id) => `${(FLOODGATE[storeOf(id)] ?? PEERS[storeOf(id)]).label} on ${libraryOf(id)}`

// ---------------------------------------------------------------------------------------------------------
// Child side: one contender, one client.

/** An ioredis client of the Redis under test (`extra`: another port). */
async function client(extra = {}) {
  const { Redis } = await import('ioredis')
  const c = new Redis({ ...REDIS, ...CONFIG.client, ...extra })
  await c.ping()
  return c
}

/** A connected client of the library a contender runs on; `close()` ends it. */
async function clientFor(id, extra = {}) {
  if (libraryOf(id) === 'ioredis') {
    const c = await client(extra)
    return { redis: c, close: () => c.disconnect() }
  }
  const { createClient } = await import('redis')
  const { host, port } = { ...REDIS, ...extra }
  const c = createClient({ socket: { host, port } })
  c.on('error', (error) => process.stderr.write(`node-redis: ${error.message}\n`))
  await c.connect()
  return { redis: c, close: () => c.destroy() }
}

/** `decide(key)` for a contender (`id` without its client suffix): resolves true when admitted. */
async function contender(id, redis, { limit, windowMs }, extra = {}) {
  if (FLOODGATE[id]) {
    const core = await import('@floodgate/core')
    const { RedisStore } = await import('@floodgate/redis')
    const algorithm =
      limit === CONFIG.throughput.limit
        ? FLOODGATE[id].make(core)
        : core.fixedWindow({ limit, window: windowMs })
    const store = new RedisStore({
      client: redis,
      prefix: `${PREFIX}:${id}`,
      ...FLOODGATE[id].options,
      ...extra,
    })
    store.answerWithin(5000)
    return async (key) => (await store.consume(algorithm, key, 1)).allowed
  }
  if (id === 'rlf') {
    const { RateLimiterRedis } = await import('rate-limiter-flexible')
    const limiter = new RateLimiterRedis({
      storeClient: redis,
      points: limit,
      duration: windowMs / 1000,
      keyPrefix: `${PREFIX}:rlf`,
    })
    return async (key) => {
      try {
        await limiter.consume(key)
        return true
      } catch (result) {
        if (result instanceof Error) throw result
        return false
      }
    }
  }
  if (id === 'rate-limit-redis') {
    const { RedisStore } = await import('rate-limit-redis')
    // Its documented sendCommand for each client: ioredis's call(), node-redis's sendCommand(args).
    const sendCommand =
      typeof redis.call === 'function'
        ? (...command) => redis.call(...command)
        : (...command) => redis.sendCommand(command)
    const store = new RedisStore({ sendCommand, prefix: `${PREFIX}:rlr:` })
    store.init({ windowMs })
    return async (key) => (await store.increment(key)).totalHits <= limit
  }
  if (id === 'fastify') {
    const RedisStore = require('@fastify/rate-limit/store/RedisStore.js')
    const store = new RedisStore(false, false, redis, `${PREFIX}:fastify:`)
    return (key) =>
      new Promise((resolve, reject) =>
        store.incr(
          key,
          (err, result) => (err ? reject(err) : resolve(result.current <= limit)),
          windowMs,
          limit,
        ),
      )
  }
  throw new Error(`unknown contender ${id}`)
}

/**
 * Keep `inFlight` calls going over `keys` for about `ms`; decisions per second, and this process's CPU time
 * per decision (user + system: what the store and its client cost the app server, which a busy machine
 * distorts less than the rate). The deadline is checked by the callers themselves (a timer could starve when
 * a store answers from memory without yielding).
 */
async function throughput(decide, keys, inFlight, ms) {
  let i = 0
  let calls = 0
  let admitted = 0
  let running = true
  const start = process.hrtime.bigint()
  const cpu = process.cpuUsage()
  const deadline = start + BigInt(Math.round(ms * 1e6))
  const worker = async () => {
    while (running) {
      if (await decide(keys[i++ % keys.length])) admitted++
      if ((++calls & 63) === 0 && process.hrtime.bigint() >= deadline) running = false
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  const used = process.cpuUsage(cpu)
  return { perSecond: calls / seconds, cpuUs: (used.user + used.system) / calls, calls, admitted }
}

async function commandStats(redis) {
  const info = await redis.info('commandstats')
  const stats = {}
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    stats[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) }
  }
  return stats
}

const SENT = new Set(['evalsha', 'eval', 'evalsha_ro', 'eval_ro', 'script|load', 'fcall'])

/** Commands and Redis time per decision over `n` sequential decisions (`attempt` names their keys). */
async function commandAttempt(decide, admin, n, attempt) {
  const before = await commandStats(admin)
  for (let i = 0; i < n; i++) await decide(`cmd-${attempt}-${i % 100}`)
  const after = await commandStats(admin)
  const rates = {}
  let usec = 0
  for (const [name, { calls, usec: spent }] of Object.entries(after)) {
    if (name.startsWith('info')) continue
    rates[name] = (calls - (before[name]?.calls ?? 0)) / n
    // Redis's time in the commands the client sent (a script's time includes the commands it runs).
    if (SENT.has(name)) usec += spent - (before[name]?.usec ?? 0)
  }
  return { rates, usec: usec / n }
}

/**
 * Redis's CPU time (user + system, `INFO cpu`: the whole server process, reading and writing included) and the
 * script calls per decision over `n` decisions with `inFlight` at a time, on a server no one else uses.
 */
async function concurrentAttempt(decide, admin, n, inFlight, attempt) {
  const keys = Array.from({ length: 1000 }, (_, i) => `busy-${attempt}-${i}`)
  const before = await readRedisUsage(admin)
  let next = 0
  const worker = async () => {
    while (next < n) await decide(keys[next++ % keys.length])
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  const used = usageBetween(before, await readRedisUsage(admin))
  const sent = Object.entries(used.calls)
    .filter(([name]) => SENT.has(name))
    .reduce((total, [, calls]) => total + calls, 0)
  return { cpuUs: used.cpuUs / n, sentPerDecision: sent / n }
}

/**
 * A contender's commands per decision from its attempts: per command the smallest rate seen (other clients
 * of the server only ever add to it), and the smallest Redis time (a busy machine only ever adds to it).
 */
function commandsPerDecision(attempts) {
  const names = new Set(attempts.flatMap((a) => Object.keys(a.rates)))
  const breakdown = {}
  for (const name of names) {
    const rate = Math.min(...attempts.map((a) => a.rates[name] ?? 0))
    if (rate > 0) breakdown[name] = rate
  }
  const sum = (filter) =>
    Object.entries(breakdown)
      .filter(([name]) => filter(name))
      .reduce((total, [, r]) => total + r, 0)
  return {
    sent: sum((name) => SENT.has(name)),
    inside: sum((name) => !SENT.has(name)),
    redisUs: Math.min(...attempts.map((a) => a.usec)),
    breakdown,
  }
}

async function child() {
  const id = args.child
  const mode = args.mode
  const keys = Array.from({ length: CONFIG.keys }, (_, i) => `198.51.${(i >> 8) & 255}.${i & 255}`)
  if (mode === 'throughput') {
    const { redis, close } = await clientFor(id)
    const decide = await contender(storeOf(id), redis, CONFIG.throughput)
    const result = {}
    for (const inFlight of CONFIG.inFlight) {
      await throughput(decide, keys, inFlight, CONFIG.warmupMs)
      result[inFlight] = await throughput(decide, keys, inFlight, CONFIG.measureMs)
    }
    close()
    return sendResult(result)
  }
  if (mode === 'blocked') {
    // One hot key, refused: the uncached store asks Redis every time, the cached one only once per retryAfter.
    const redis = await client()
    const cached = args.cached === 'yes'
    const decide = await contender('floodgate-fw', redis, CONFIG.blocked, cached ? { blockCache: true } : {})
    const hot = [`hot-${cached}`]
    for (let i = 0; i < CONFIG.blocked.limit; i++) await decide(hot[0])
    const result = {}
    for (const inFlight of CONFIG.inFlight) {
      await throughput(decide, hot, inFlight, CONFIG.warmupMs)
      result[inFlight] = await throughput(decide, hot, inFlight, CONFIG.measureMs)
      if (result[inFlight].admitted !== 0) throw new Error('a refused key was admitted')
    }
    redis.disconnect()
    return sendResult(result)
  }
  throw new Error(`unknown mode ${mode}`)
}

// ---------------------------------------------------------------------------------------------------------
// Parent side.

/** A private redis-server on a free port, so that command counts and server time are this run's alone. */
async function startPrivateRedis() {
  const { spawn } = await import('node:child_process')
  const net = await import('node:net')
  const port = await new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  )
  const failed = await new Promise((resolve) => {
    child.once('error', () => resolve(true))
    setTimeout(() => resolve(false), 300)
  })
  if (failed) return undefined
  const { Redis } = await import('ioredis')
  const probe = new Redis({ port, lazyConnect: true, retryStrategy: () => 50 })
  await probe.connect()
  await probe.ping()
  probe.disconnect()
  return { port, stop: () => child.kill('SIGTERM') }
}

/**
 * Commands and Redis time per decision for every contender, in this process, their attempts interleaved: on a private
 * redis-server when one can be started (exact counts, an otherwise idle server), else on the shared Redis.
 */
async function countCommands() {
  const own = await startPrivateRedis()
  const where = own ? { port: own.port } : {}
  const commands = {}
  const admin = await client(where)
  const opened = []
  try {
    for (const id of CONTENDERS) {
      const { redis, close } = await clientFor(id, where)
      opened.push(close)
      const decide = await contender(storeOf(id), redis, CONFIG.throughput)
      await decide('warm')
      commands[id] = { decide, attempts: [], busy: [] }
    }
    // Attempts interleave the contenders, so that a busy moment of the machine weighs on all of them alike.
    for (let attempt = 0; attempt < 5; attempt++) {
      for (const id of CONTENDERS) {
        const { decide, attempts } = commands[id]
        attempts.push(await commandAttempt(decide, admin, CONFIG.commandSample, attempt))
      }
    }
    // Then with 256 in flight: Redis's CPU per decision when a busy server sends many decisions at once.
    for (let attempt = 0; attempt < 3; attempt++) {
      for (const id of CONTENDERS) {
        const { decide, busy } = commands[id]
        busy.push(await concurrentAttempt(decide, admin, CONFIG.busySample, 256, attempt))
      }
    }
    for (const id of CONTENDERS) {
      const busy = commands[id].busy
      commands[id] = {
        ...commandsPerDecision(commands[id].attempts),
        busyRedisCpuUs: Math.min(...busy.map((b) => b.cpuUs)),
        busyRedisCpuUsRange: [Math.min(...busy.map((b) => b.cpuUs)), Math.max(...busy.map((b) => b.cpuUs))],
        busySentPerDecision: Math.min(...busy.map((b) => b.sentPerDecision)),
      }
    }
  } finally {
    for (const close of opened) close()
    admin.disconnect()
    own?.stop()
  }
  return {
    commands,
    server: own ? `a private redis-server (port ${own.port})` : `${REDIS.host}:${REDIS.port}`,
  }
}

async function cleanUp() {
  const { Redis } = await import('ioredis')
  const redis = new Redis(REDIS)
  let cursor = '0'
  let removed = 0
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000)
    cursor = next
    if (keys.length > 0) removed += await redis.unlink(...keys)
  } while (cursor !== '0')
  await redis.quit()
  return removed
}

async function ensureReady() {
  const { Redis } = await import('ioredis')
  const redis = new Redis({ ...REDIS, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
  redis.on('error', () => {})
  try {
    await redis.connect()
    await redis.ping()
  } catch {
    throw new Error(
      `The Redis bench needs a Redis at ${REDIS.host}:${REDIS.port}: install it (apt-get install redis-server) and start it (redis-server --daemonize yes).`,
    )
  } finally {
    redis.disconnect()
  }
  try {
    await import('@floodgate/redis')
  } catch (error) {
    throw new Error(`@floodgate/redis is not built (run \`npx turbo run build\` first): ${error.message}`)
  }
}

/**
 * One measurement in a fresh child. A child that could not import a package because it was being rebuilt at
 * that moment (its dist missing: the tree is shared) measured nothing and says so; it is started again, twice
 * at most, after a pause.
 */
async function run(mode, id, extra = []) {
  const argv = ['--child', id, '--mode', mode, '--prefix', PREFIX, ...(quick ? ['--quick'] : []), ...extra]
  for (let attempt = 1; ; attempt++) {
    const result = await runNode(SELF, [...argv, ...passOn()], { timeoutMs: 60_000 })
    if (result.rebuilding === undefined) return result
    if (attempt === 3) throw new Error(`${id}: ${result.rebuilding}`)
    process.stderr.write(`${id}: a package was being rebuilt; starting the child again\n`)
    await new Promise((r) => setTimeout(r, 5000))
  }
}
const passOn = () => (args.pipelining ? ['--pipelining', args.pipelining] : [])

async function main() {
  await ensureReady()
  const started = Date.now()
  const loadAtStart = os.loadavg()[0]
  const samples = Object.fromEntries(CONTENDERS.map((id) => [id, { 1: [], 256: [] }]))
  const cpuSamples = Object.fromEntries(CONTENDERS.map((id) => [id, { 1: [], 256: [] }]))
  for (let round = 0; round < CONFIG.rounds; round++) {
    const order = round % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse()
    for (const id of order) {
      const result = await run('throughput', id)
      for (const inFlight of CONFIG.inFlight) {
        samples[id][inFlight].push(result[inFlight].perSecond)
        cpuSamples[id][inFlight].push(result[inFlight].cpuUs)
      }
      process.stderr.write(
        `round ${round + 1} ${id.padEnd(18)} ${CONFIG.inFlight.map((n) => `${n}: ${fmtCount(result[n].perSecond)}/s`).join('  ')}\n`,
      )
    }
  }
  const { commands, server: countedOn } = await countCommands()
  const blocked = {}
  for (const cached of ['no', 'yes']) {
    const samplesBlocked = { 1: [], 256: [] }
    for (let round = 0; round < Math.min(2, CONFIG.rounds); round++) {
      const r = await run('blocked', 'floodgate-fw', ['--cached', cached])
      for (const n of CONFIG.inFlight) samplesBlocked[n].push(r[n].perSecond)
    }
    blocked[cached] = Object.fromEntries(CONFIG.inFlight.map((n) => [n, summarize(samplesBlocked[n])]))
  }
  const removed = await cleanUp()

  const stats = Object.fromEntries(
    CONTENDERS.map((id) => [
      id,
      Object.fromEntries(CONFIG.inFlight.map((n) => [n, summarize(samples[id][n])])),
    ]),
  )
  const cpu = Object.fromEntries(
    CONTENDERS.map((id) => [
      id,
      Object.fromEntries(CONFIG.inFlight.map((n) => [n, summarize(cpuSamples[id][n])])),
    ]),
  )
  const fastestPeer = Object.fromEntries(
    CONFIG.inFlight.map((n) => {
      const best = CONTENDERS.filter(isPeer).reduce((a, b) =>
        stats[a][n].median >= stats[b][n].median ? a : b,
      )
      return [n, { id: best, perSecond: stats[best][n].median }]
    }),
  )
  const ratio = (id, n) => stats[id][n].median / fastestPeer[n].perSecond
  // Each client side by side: every store on ioredis and on node-redis, each against rate-limit-redis on the
  // same client at the same concurrency.
  const SIDE_BY_SIDE = [...Object.keys(FLOODGATE), 'rate-limit-redis']
  const onClient = (store, library) => (library === 'ioredis' ? store : `${store}${NODE_REDIS}`)
  const vsRlr = (store, library, n) =>
    stats[onClient(store, library)][n].median / stats[onClient('rate-limit-redis', library)][n].median
  const byClient = Object.fromEntries(
    SIDE_BY_SIDE.map((store) => [
      store,
      Object.fromEntries(
        ['ioredis', 'node-redis'].map((library) => [
          library,
          Object.fromEntries(
            CONFIG.inFlight.map((n) => [
              n,
              {
                perSecond: stats[onClient(store, library)][n].median,
                vsRateLimitRedisSameClient: vsRlr(store, library, n),
                clientCpuUsPerDecision: cpu[onClient(store, library)][n].median,
              },
            ]),
          ),
        ]),
      ),
    ]),
  )
  const sideCell = (store, library, n) => {
    const { median, spread } = stats[onClient(store, library)][n]
    const vs = store === 'rate-limit-redis' ? '' : ` · ${fmtRatio(vsRlr(store, library, n))}`
    return `${fmtCount(median)}/s ${fmtSpread(spread)}${vs}`
  }
  const sideRows = SIDE_BY_SIDE.map((store) => [
    (FLOODGATE[store] ?? PEERS[store]).label,
    ...CONFIG.inFlight.flatMap((n) => [sideCell(store, 'ioredis', n), sideCell(store, 'node-redis', n)]),
    ...CONFIG.inFlight.map((n) =>
      fmtRatio(stats[onClient(store, 'node-redis')][n].median / stats[onClient(store, 'ioredis')][n].median),
    ),
    ...['ioredis', 'node-redis'].map((library) => cpu[onClient(store, library)][256].median.toFixed(1)),
  ])

  const batchedIds = CONTENDERS.filter((id) => BATCHED.includes(storeOf(id)))
  const cheapestPeerBusy = Math.min(...CONTENDERS.filter(isPeer).map((id) => commands[id].busyRedisCpuUs))
  const busyVsPeer = (id) => commands[id].busyRedisCpuUs / cheapestPeerBusy
  const lowest = (ids, f) => ids.reduce((a, b) => (f(a) <= f(b) ? a : b))
  const highest = (ids, f) => ids.reduce((a, b) => (f(a) >= f(b) ? a : b))
  const slowestBatched = lowest(batchedIds, (id) => ratio(id, 256))
  const costliestBatched = highest(batchedIds, busyVsPeer)
  const alone = (library) =>
    stats[onClient('floodgate-swc', library)][1].median /
    stats[onClient('floodgate-swc-unbatched', library)][1].median
  // Redis time per decision over rate-limit-redis's on the same client (below 1: less Redis CPU per decision).
  const redisUsVsRlr = (id) =>
    commands[id].redisUs / commands[onClient('rate-limit-redis', libraryOf(id))].redisUs
  const rows = CONTENDERS.map((id) => [
    labelOf(id),
    ...CONFIG.inFlight.flatMap((n) => [
      `${fmtCount(stats[id][n].median)}/s ${fmtSpread(stats[id][n].spread)}`,
      fmtRatio(ratio(id, n)),
    ]),
    commands[id].sent.toFixed(2),
    commands[id].inside.toFixed(2),
    commands[id].redisUs.toFixed(1),
    fmtRatio(redisUsVsRlr(id)),
    commands[id].busySentPerDecision.toFixed(3),
    `${commands[id].busyRedisCpuUs.toFixed(2)} (${commands[id].busyRedisCpuUsRange.map((v) => v.toFixed(2)).join('–')})`,
    fmtRatio(busyVsPeer(id)),
  ])
  const goal = {
    atLeastOneCommand: CONTENDERS.filter(isFloodgate).every((id) => commands[id].sent <= 1.01),
    batched1_5xFastestPeer: ratio(slowestBatched, 256) >= 1.5,
    batchedRedisCpuAtMostPeer: busyVsPeer(costliestBatched) <= 1,
    blockCache10x: blocked.yes[256].median / blocked.no[256].median >= 10,
  }
  const md = [
    '## Redis stores',
    '',
    `Decisions per second against one local Redis (${REDIS.host}:${REDIS.port}), with 1 and with 256 requests in flight, ` +
      `${CONFIG.keys.toLocaleString('en')} keys round robin, every call admitted; each cell is the median of ` +
      `${CONFIG.rounds} interleaved rounds of ${CONFIG.measureMs} ms (± half the spread), each contender in its own ` +
      `process with its own client: ioredis (\`${JSON.stringify(CONFIG.client)}\`) or node-redis (\`createClient()\`, ` +
      'which pipelines the commands of one tick by itself). Ratios are to the fastest peer at ' +
      `that concurrency (${CONFIG.inFlight.map((n) => `${n} in flight: ${labelOf(fastestPeer[n].id)}`).join('; ')}). ` +
      `Commands per decision from \`INFO commandstats\` deltas over ${CONFIG.commandSample} sequential decisions ` +
      '(5 attempts interleaving the contenders, the smallest) ' +
      `on ${countedOn}: *sent* is what the client sends (EVALSHA/EVAL), *in script* what the script runs inside ` +
      'Redis; *Redis µs* is the server time per decision (commandstats `usec` of the commands sent, which ' +
      "includes what the scripts run), what bounds a single Redis's throughput once it is busy. With 256 in flight " +
      `(${CONFIG.busySample} decisions, 3 attempts interleaving the contenders, the smallest; the range in brackets), on ` +
      "the same private server: the script calls sent per decision and Redis's whole CPU time (user + system, " +
      "`INFO cpu`: reading, parsing and writing included) per decision, over the cheapest peer's. Floodgate " +
      'sends the decisions of one tick as one script call per `maxSize` (128) items (`batch`, on by default).',
    '',
    mdTable(
      [
        'store',
        ...CONFIG.inFlight.flatMap((n) => [
          { title: `${n} in flight`, align: 'right' },
          { title: 'vs fastest peer', align: 'right' },
        ]),
        { title: 'commands sent', align: 'right' },
        { title: 'in script', align: 'right' },
        { title: 'Redis µs', align: 'right' },
        { title: 'Redis µs vs rate-limit-redis', align: 'right' },
        { title: 'calls sent, 256 in flight', align: 'right' },
        { title: 'Redis CPU µs, 256 in flight', align: 'right' },
        { title: 'vs cheapest peer', align: 'right' },
      ],
      rows,
    ),
    '',
    '### Each client side by side',
    '',
    'The same numbers, by client: every store on ioredis and on node-redis, each cell followed by its ratio to ' +
      'rate-limit-redis on the same client at the same concurrency; then node-redis over ioredis for that ' +
      'store, and the CPU time (user + system) the contender process spent per decision at 256 in flight ' +
      '(median of the rounds): what the store and its client cost an app server, which a busy machine ' +
      "distorts less than the rates. Floodgate sends its node-redis commands without node-redis's own " +
      "per-command timeout (it bounds every call itself); rate-limit-redis runs with the client's defaults, as " +
      'its users do (node-redis 6: a 5 s timeout per command, an `AbortSignal` each).',
    '',
    mdTable(
      [
        'store',
        ...CONFIG.inFlight.flatMap((n) => [
          { title: `ioredis, ${n} in flight`, align: 'right' },
          { title: `node-redis, ${n} in flight`, align: 'right' },
        ]),
        ...CONFIG.inFlight.map((n) => ({ title: `node-redis / ioredis, ${n}`, align: 'right' })),
        { title: 'CPU µs/decision, ioredis', align: 'right' },
        { title: 'CPU µs/decision, node-redis', align: 'right' },
      ],
      sideRows,
    ),
    '',
    '### Block cache: one hot key, refused',
    '',
    mdTable(
      [
        'RedisStore, fixed window',
        ...CONFIG.inFlight.map((n) => ({ title: `${n} in flight`, align: 'right' })),
      ],
      [
        [
          'uncached (one EVALSHA per refusal)',
          ...CONFIG.inFlight.map((n) => `${fmtCount(blocked.no[n].median)}/s`),
        ],
        ['`blockCache: true`', ...CONFIG.inFlight.map((n) => `${fmtCount(blocked.yes[n].median)}/s`)],
        ['ratio', ...CONFIG.inFlight.map((n) => fmtRatio(blocked.yes[n].median / blocked.no[n].median))],
      ],
    ),
    '',
    `Goals: at 256 in flight every Floodgate algorithm (batched, both clients) at least 1.5x the fastest peer: ` +
      `${goal.batched1_5xFastestPeer ? 'met' : 'NOT met'} (lowest: ${labelOf(slowestBatched)}, ` +
      `${fmtRatio(ratio(slowestBatched, 256))}); Redis CPU per decision at 256 in flight at most the cheapest peer's ` +
      `(${CONTENDERS.filter(isPeer)
        .map((id) => `${labelOf(id)} ${commands[id].busyRedisCpuUs.toFixed(2)} µs`)
        .join(
          ', ',
        )}): ${goal.batchedRedisCpuAtMostPeer ? 'met' : 'NOT met'} (highest: ${labelOf(costliestBatched)}, ` +
      `${fmtRatio(busyVsPeer(costliestBatched))}); at most one command sent per decision: ` +
      `${goal.atLeastOneCommand ? 'met' : 'NOT met'}; the block cache at least 10x the uncached refusal rate: ` +
      `${goal.blockCache10x ? 'met' : 'NOT met'} (${fmtRatio(blocked.yes[256].median / blocked.no[256].median)}). ` +
      'One in flight, the batched sliding window counter over the same with `batch: false` (a decision alone in ' +
      `its turn of the event loop is sent at its end, as its own script): ${fmtRatio(alone('ioredis'))} on ioredis, ` +
      `${fmtRatio(alone('node-redis'))} on node-redis (the CPU instructions of the two, counted: ` +
      '`node bench/suites/redis/client-count.mjs`).',
    '',
    'What the commands are: every Floodgate script reads the Redis server clock (`TIME`), reads its state ' +
      '(`GET` of little-endian doubles; the log: `GETRANGE` of its last 32 bytes) and writes it back: `SETRANGE` when the ' +
      "key's TTL still covers the new state (same window; a bucket's or GCRA's expiry, kept in the state, still " +
      'far enough; the log: its new entries and its header in one), else `SET ... PX`. So windows are aligned to the clock, time ' +
      "is the server's and retry-after is exact, at three commands per decision; the peers count hits with " +
      '`INCR` against a key TTL (a window that starts at the first hit) and read no clock: two commands. On a ' +
      'shared 2-core machine these numbers move by tens of per cent from run to run: compare within a run, ' +
      'and mind the spread.',
    '',
    `Measured with \`${commandLine()}\` in ${Math.round((Date.now() - started) / 1000)} s, load average ` +
      `${loadAtStart.toFixed(1)} at the start and ${os.loadavg()[0].toFixed(1)} at the end on ${os.cpus().length} cores.` +
      `${quick ? ' (--quick: numbers not representative.)' : ''}`,
  ].join('\n')
  const json = {
    meta: { ...machine(), command: commandLine(), config: CONFIG, quick, keysRemoved: removed },
    throughput: Object.fromEntries(
      CONTENDERS.map((id) => [
        id,
        {
          label: labelOf(id),
          ...Object.fromEntries(
            CONFIG.inFlight.map((n) => [
              n,
              {
                ...stats[id][n],
                samples: samples[id][n],
                vsFastestPeer: ratio(id, n),
                clientCpuUsPerDecision: cpu[id][n],
              },
            ]),
          ),
        },
      ]),
    ),
    fastestPeer,
    byClient,
    commandsPerDecision: { countedOn, ...commands },
    blockCache: blocked,
    goals: goal,
  }
  const files = writeResults('redis', md, json)
  console.log(md)
  console.log(`\nwrote ${files.md} and ${files.json}`)
}

if (args.child) {
  await child().catch((error) => {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error
    sendResult({ rebuilding: error.message })
    process.exit(0) // its client may be connected already
  })
} else {
  // A run that fails half-way still deletes the keys it made.
  await main().catch(async (error) => {
    await cleanUp().catch(() => {})
    throw error
  })
}
