// @bench-title Redis stores
// @bench-flags
//
// Floodgate's RedisStore (every algorithm) against the peers' Redis stores, against the same local Redis
// (127.0.0.1:6379), in one run:
//   - decisions per second with 1 and with 256 requests in flight, on 10,000 keys round robin, with a quota
//     nobody reaches (every call admitted, so every store does the same work);
//   - commands per decision, from `INFO commandstats` deltas: the commands a client sends (EVALSHA, EVAL,
//     SCRIPT) and the commands the scripts run inside Redis;
//   - the block cache: decisions per second on one hot key that is refused, with and without it.
// Peers: rate-limiter-flexible's RateLimiterRedis, rate-limit-redis (through express-rate-limit's store API:
// init + increment) and @fastify/rate-limit's Redis store (incr). Every contender gets its own ioredis
// client with the same options, and runs in a fresh child process; rounds interleave the contenders.
// Writes bench/results/redis.md and bench/results/redis.json. Imports the built packages: build first
// (`npx turbo run build`).
//
//   node bench/suites/redis.mjs            the full suite (about 2 minutes)
//   node bench/suites/redis.mjs --quick    a smoke run with tiny durations (numbers not representative)

import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { parseArgs, runNode, sendResult } from '../lib/child.mjs'
import { commandLine, machine } from '../lib/env.mjs'
import { fmtCount, fmtRatio, fmtSpread, mdTable } from '../lib/format.mjs'
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
  rounds: Number(args.rounds ?? (quick ? 1 : 4)),
  warmupMs: quick ? 100 : 200,
  measureMs: quick ? 200 : 500,
  keys: 10_000,
  inFlight: [1, 256],
  /** Commands per decision: this many sequential decisions, 5 tries, the smallest rate per command. */
  commandSample: quick ? 100 : 500,
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
}
const PEERS = {
  rlf: { label: 'rate-limiter-flexible RateLimiterRedis' },
  'rate-limit-redis': { label: 'rate-limit-redis (express-rate-limit store)' },
  fastify: { label: '@fastify/rate-limit RedisStore' },
}
const CONTENDERS = [...Object.keys(FLOODGATE), ...Object.keys(PEERS)]
const labelOf = (id) => (FLOODGATE[id] ?? PEERS[id]).label

// ---------------------------------------------------------------------------------------------------------
// Child side: one contender, one client.

async function client(extra = {}) {
  const { Redis } = await import('ioredis')
  const c = new Redis({ ...REDIS, ...CONFIG.client, ...extra })
  await c.ping()
  return c
}

/** `decide(key)` for a contender: resolves true when admitted. */
async function contender(id, redis, { limit, windowMs }, extra = {}) {
  if (FLOODGATE[id]) {
    const core = await import('@floodgate/core')
    const { RedisStore } = await import('@floodgate/redis')
    const algorithm =
      limit === CONFIG.throughput.limit
        ? FLOODGATE[id].make(core)
        : core.fixedWindow({ limit, window: windowMs })
    const store = new RedisStore({ client: redis, prefix: `${PREFIX}:${id}`, timeoutMs: 5000, ...extra })
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
    const store = new RedisStore({
      sendCommand: (...command) => redis.call(...command),
      prefix: `${PREFIX}:rlr:`,
    })
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
 * Keep `inFlight` calls going over `keys` for about `ms`; decisions per second. The deadline is checked by
 * the callers themselves (a timer could starve when a store answers from memory without yielding).
 */
async function throughput(decide, keys, inFlight, ms) {
  let i = 0
  let calls = 0
  let admitted = 0
  let running = true
  const start = process.hrtime.bigint()
  const deadline = start + BigInt(Math.round(ms * 1e6))
  const worker = async () => {
    while (running) {
      if (await decide(keys[i++ % keys.length])) admitted++
      if ((++calls & 63) === 0 && process.hrtime.bigint() >= deadline) running = false
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  return { perSecond: calls / seconds, calls, admitted }
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

/**
 * Commands per decision over `n` sequential decisions, from `INFO commandstats` deltas. The shared Redis may
 * serve other processes at the same time, so it tries 5 times and keeps, per command, the smallest rate seen.
 */
async function commandsPerDecision(decide, redis, n) {
  const rates = {}
  const usecs = []
  for (let attempt = 0; attempt < 5; attempt++) {
    const before = await commandStats(redis)
    for (let i = 0; i < n; i++) await decide(`cmd-${attempt}-${i % 100}`)
    const after = await commandStats(redis)
    const seen = new Set()
    let usec = 0
    for (const [name, { calls, usec: spent }] of Object.entries(after)) {
      if (name.startsWith('info')) continue
      const d = (calls - (before[name]?.calls ?? 0)) / n
      seen.add(name)
      rates[name] = Math.min(rates[name] ?? Number.POSITIVE_INFINITY, d)
      // Redis's time in the commands the client sent (a script's time includes the commands it runs).
      if (SENT.has(name)) usec += spent - (before[name]?.usec ?? 0)
    }
    for (const name of Object.keys(rates)) if (!seen.has(name)) rates[name] = 0
    usecs.push(usec / n)
  }
  const breakdown = Object.fromEntries(Object.entries(rates).filter(([, r]) => r > 0))
  const sum = (filter) =>
    Object.entries(breakdown)
      .filter(([name]) => filter(name))
      .reduce((total, [, r]) => total + r, 0)
  return {
    sent: sum((name) => SENT.has(name)),
    inside: sum((name) => !SENT.has(name)),
    redisUs: Math.min(...usecs),
    breakdown,
  }
}

async function child() {
  const id = args.child
  const mode = args.mode
  const keys = Array.from({ length: CONFIG.keys }, (_, i) => `198.51.${(i >> 8) & 255}.${i & 255}`)
  if (mode === 'throughput') {
    const redis = await client()
    const decide = await contender(id, redis, CONFIG.throughput)
    const result = {}
    for (const inFlight of CONFIG.inFlight) {
      await throughput(decide, keys, inFlight, CONFIG.warmupMs)
      result[inFlight] = await throughput(decide, keys, inFlight, CONFIG.measureMs)
    }
    redis.disconnect()
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
 * Commands and Redis time per decision for every contender, in this process, one after another: on a private
 * redis-server when one can be started (exact counts, an otherwise idle server), else on the shared Redis.
 */
async function countCommands() {
  const own = await startPrivateRedis()
  const where = own ? { port: own.port } : {}
  const commands = {}
  try {
    for (const id of CONTENDERS) {
      const redis = await client(where)
      const decide = await contender(id, redis, CONFIG.throughput)
      await decide('warm')
      commands[id] = await commandsPerDecision(decide, redis, CONFIG.commandSample)
      redis.disconnect()
    }
  } finally {
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

const run = (mode, id, extra = []) =>
  runNode(
    SELF,
    ['--child', id, '--mode', mode, '--prefix', PREFIX, ...(quick ? ['--quick'] : []), ...extra, ...passOn()],
    {
      timeoutMs: 60_000,
    },
  )
const passOn = () => (args.pipelining ? ['--pipelining', args.pipelining] : [])

async function main() {
  await ensureReady()
  const started = Date.now()
  const samples = Object.fromEntries(CONTENDERS.map((id) => [id, { 1: [], 256: [] }]))
  for (let round = 0; round < CONFIG.rounds; round++) {
    const order = round % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse()
    for (const id of order) {
      const result = await run('throughput', id)
      for (const inFlight of CONFIG.inFlight) samples[id][inFlight].push(result[inFlight].perSecond)
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
  const fastestPeer = Object.fromEntries(
    CONFIG.inFlight.map((n) => {
      const best = Object.keys(PEERS).reduce((a, b) => (stats[a][n].median >= stats[b][n].median ? a : b))
      return [n, { id: best, perSecond: stats[best][n].median }]
    }),
  )
  const ratio = (id, n) => stats[id][n].median / fastestPeer[n].perSecond

  const rows = CONTENDERS.map((id) => [
    labelOf(id),
    ...CONFIG.inFlight.flatMap((n) => [
      `${fmtCount(stats[id][n].median)}/s ${fmtSpread(stats[id][n].spread)}`,
      fmtRatio(ratio(id, n)),
    ]),
    commands[id].sent.toFixed(2),
    commands[id].inside.toFixed(2),
    commands[id].redisUs.toFixed(1),
  ])
  const goal = {
    oneCommand: Object.keys(FLOODGATE).every((id) => Math.abs(commands[id].sent - 1) < 0.01),
    fixedWindowAtLeastFastestPeer: ratio('floodgate-fw', 256) >= 1,
    othersWithin10Percent: Object.keys(FLOODGATE).every((id) => ratio(id, 256) >= 0.9),
    blockCache10x: blocked.yes[256].median / blocked.no[256].median >= 10,
  }
  const md = [
    '## Redis stores',
    '',
    `Decisions per second against one local Redis (${REDIS.host}:${REDIS.port}), with 1 and with 256 requests in flight, ` +
      `${CONFIG.keys.toLocaleString('en')} keys round robin, every call admitted; each cell is the median of ` +
      `${CONFIG.rounds} interleaved rounds of ${CONFIG.measureMs} ms (± half the spread), each contender in its own ` +
      `process with its own ioredis client (\`${JSON.stringify(CONFIG.client)}\`). Ratios are to the fastest peer at ` +
      `that concurrency (${CONFIG.inFlight.map((n) => `${n} in flight: ${labelOf(fastestPeer[n].id)}`).join('; ')}). ` +
      `Commands per decision from \`INFO commandstats\` deltas over ${CONFIG.commandSample} sequential decisions ` +
      `on ${countedOn}: *sent* is what the client sends (EVALSHA/EVAL), *in script* what the script runs inside ` +
      'Redis; *Redis µs* is the server time per decision (commandstats `usec` of the commands sent, which ' +
      "includes what the scripts run), what bounds a single Redis's throughput once it is busy.",
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
      ],
      rows,
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
    `Goals: one command per decision ${goal.oneCommand ? 'met' : 'NOT met'}; at 256 in flight the fixed window ` +
      `${goal.fixedWindowAtLeastFastestPeer ? 'is' : 'is NOT'} at least as fast as the fastest peer ` +
      `(${fmtRatio(ratio('floodgate-fw', 256))}), every other algorithm ${goal.othersWithin10Percent ? 'is' : 'is NOT'} ` +
      `within 10% of it (lowest: ${fmtRatio(Math.min(...Object.keys(FLOODGATE).map((id) => ratio(id, 256))))}); the block ` +
      `cache ${goal.blockCache10x ? 'is' : 'is NOT'} at least 10x the uncached refusal rate ` +
      `(${fmtRatio(blocked.yes[256].median / blocked.no[256].median)}).`,
    '',
    'What the commands are: every Floodgate script reads the Redis server clock (`TIME`) and writes its state ' +
      "with `SET ... PX` (the log: a list), so windows are aligned to the clock, time is the server's and " +
      'retry-after is exact; the peers count hits with `INCR` against a key TTL (a window that starts at the ' +
      'first hit) and read no clock. On a shared 2-core machine these numbers move by tens of per cent from ' +
      'run to run: compare within a run, and mind the spread.',
    '',
    `Measured with \`${commandLine()}\` in ${Math.round((Date.now() - started) / 1000)} s.${quick ? ' (--quick: numbers not representative.)' : ''}`,
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
              { ...stats[id][n], samples: samples[id][n], vsFastestPeer: ratio(id, n) },
            ]),
          ),
        },
      ]),
    ),
    fastestPeer,
    commandsPerDecision: { countedOn, ...commands },
    blockCache: blocked,
    goals: goal,
  }
  const files = writeResults('redis', md, json)
  console.log(md)
  console.log(`\nwrote ${files.md} and ${files.json}`)
}

if (args.child) await child()
else await main()
