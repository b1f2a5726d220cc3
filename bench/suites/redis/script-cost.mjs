// What one decision costs Redis, in CPU instructions of the redis-server process (valgrind's callgrind: the
// same count whatever else the machine is doing), piece by piece: the floor of any EVALSHA, each command a
// script may run, the peers' scripts and Floodgate's. Each case runs against a redis-server of its own under
// callgrind, twice (SMALL and LARGE sequential calls); the difference over the difference in calls is one
// call, so start-up, script loading and connection set-up cancel. Then every store with 256 decisions in flight
// (ioredis with `enableAutoPipelining`, as the redis suite runs them): what a decision costs Redis when a busy
// server sends many at once, where Floodgate sends the decisions of one tick as one script call.
//
//   node bench/suites/redis/script-cost.mjs            # about 2 minutes, 6 more with 256 in flight
//   node bench/suites/redis/script-cost.mjs --sequential-only
//   node bench/suites/redis/script-cost.mjs --only Floodgate   # some cases (the floor and the peer always)
//   node bench/suites/redis/script-cost.mjs --quick    # a smoke run
import { readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { hasValgrind } from '../../lib/instructions.mjs'
import { startPrivateRedis } from '../../lib/redis-server.mjs'

const quick = process.argv.includes('--quick')
const SMALL = quick ? 200 : 2_000
const LARGE = quick ? 600 : 10_000
const KEYS = 1_000

/** A script that does `body` and replies 1: the cost of the commands in it, on top of the call itself. */
const piece = (label, body) => ({
  label,
  async prepare(client) {
    const sha = await client.script('LOAD', `${body} return 1`)
    await client.set('piece', Buffer.alloc(16))
    return () => client.evalsha(sha, 1, 'piece', 'x')
  },
})

/** Floodgate's RedisStore deciding with `make(core)`, on the server's clock, 1,000 keys round robin. */
const floodgate = (label, make, inFlight = 1) => ({
  label,
  inFlight,
  async prepare(client) {
    const core = await import('@floodgate/core')
    const { RedisStore } = await import('@floodgate/redis')
    // No deadline within reach: under valgrind Redis answers far later than in real time, and a decision that
    // timed out would reject, without Redis (and open the circuit: then none reach it).
    const store = new RedisStore({ client, prefix: 'cost' })
    store.answerWithin(600_000)
    const algorithm = make(core)
    let i = 0
    return async () => {
      const decision = await store.consume(algorithm, `10.0.0.${i++ % KEYS}`, 1)
      if (decision.source !== 'redis')
        throw new Error(`a decision did not come from Redis: ${decision.source}`)
    }
  },
})

const CASES = [
  piece('EVALSHA of a script that only replies', ''),
  piece(
    '+ TIME and its conversion to ms',
    "local t = redis.call('TIME') local now = t[1] * 1000 + t[2] / 1000",
  ),
  piece('+ PTTL', "local t = redis.call('PTTL', KEYS[1])"),
  piece('+ GET', "local v = redis.call('GET', KEYS[1])"),
  piece('+ GET and SETRANGE', "local v = redis.call('GET', KEYS[1]) redis.call('SETRANGE', KEYS[1], '0', v)"),
  piece(
    '+ INCR and PTTL, replying a table (what rate-limit-redis runs)',
    "local n = redis.call('INCR', 'count') local t = redis.call('PTTL', 'count') local r = { n, t }",
  ),
  {
    label: 'rate-limit-redis, one increment (PTTL, INCR)',
    async prepare(client) {
      const { RedisStore } = await import('rate-limit-redis')
      const store = new RedisStore({ sendCommand: (...command) => client.call(...command), prefix: 'rlr:' })
      store.init({ windowMs: 3_600_000 })
      let i = 0
      return () => store.increment(`10.0.0.${i++ % KEYS}`)
    },
  },
  floodgate('Floodgate sliding window counter (TIME, GET, SETRANGE)', (c) =>
    c.slidingWindowCounter({ limit: 1e9, window: '1h' }),
  ),
  floodgate('Floodgate sliding window log', (c) => c.slidingWindowLog({ limit: 1e6, window: '1h' })),
  floodgate('Floodgate fixed window (TIME, GET, SETRANGE)', (c) =>
    c.fixedWindow({ limit: 1e9, window: '1h' }),
  ),
  floodgate('Floodgate GCRA (TIME, GET, SETRANGE)', (c) => c.gcra({ rate: 1, period: '1m', burst: 1e9 })),
]

/** Start redis-server under callgrind, run `calls` of the case, stop it; its instruction total. */
async function countRedis(testCase, calls) {
  const out = path.join(os.tmpdir(), `fg-redis-cost-${process.pid}-${Date.now()}`)
  const redis = await startPrivateRedis({
    readyTimeoutMs: 60_000,
    runUnder: ['valgrind', '--tool=callgrind', `--callgrind-out-file=${out}`],
    // The server's timers (10 a second by default) run more often per call the slower the machine: once a
    // second, they add little to a call's count however busy the machine is.
    args: ['--hz', '1', '--dynamic-hz', 'no'],
  })
  if (!redis) throw new Error('could not start redis-server under valgrind')
  const inFlight = testCase.inFlight ?? 1
  const client = new Redis({ port: redis.port, maxRetriesPerRequest: 0, enableAutoPipelining: inFlight > 1 })
  try {
    const call = await testCase.prepare(client)
    let next = 0
    const worker = async () => {
      while (next++ < calls) await call()
    }
    await Promise.all(Array.from({ length: inFlight }, worker))
  } finally {
    client.disconnect()
    await redis.stop() // SIGTERM: the server shuts down, and callgrind writes its count
  }
  try {
    const summary = /^summary: (\d+)/m.exec(readFileSync(out, 'utf8'))
    if (!summary) throw new Error(`no callgrind summary for ${testCase.label}`)
    return Number(summary[1])
  } finally {
    rmSync(out, { force: true })
  }
}

/** A peer's store, one decision per call: `make(client)` returns the call. */
const peer = (label, make, inFlight) => ({ label, inFlight, prepare: async (client) => make(client) })
let peerKey = 0
const key = () => `10.0.0.${peerKey++ % KEYS}`
const IN_FLIGHT = 256
const CONCURRENT = [
  peer(
    'rate-limit-redis, 256 in flight',
    async (client) => {
      const { RedisStore } = await import('rate-limit-redis')
      const store = new RedisStore({ sendCommand: (...command) => client.call(...command), prefix: 'rlr:' })
      store.init({ windowMs: 3_600_000 })
      return () => store.increment(key())
    },
    IN_FLIGHT,
  ),
  peer(
    'rate-limiter-flexible RateLimiterRedis, 256 in flight',
    async (client) => {
      const { RateLimiterRedis } = await import('rate-limiter-flexible')
      const limiter = new RateLimiterRedis({
        storeClient: client,
        points: 1e9,
        duration: 3600,
        keyPrefix: 'rlf',
      })
      return () => limiter.consume(key())
    },
    IN_FLIGHT,
  ),
  peer(
    '@fastify/rate-limit RedisStore, 256 in flight',
    async (client) => {
      const { createRequire } = await import('node:module')
      const RedisStore = createRequire(import.meta.url)('@fastify/rate-limit/store/RedisStore.js')
      const store = new RedisStore(false, false, client, 'fastify:')
      return () =>
        new Promise((resolve, reject) =>
          store.incr(key(), (err, result) => (err ? reject(err) : resolve(result)), 3_600_000, 1e9),
        )
    },
    IN_FLIGHT,
  ),
  ...[
    ['fixed window', (c) => c.fixedWindow({ limit: 1e9, window: '1h' })],
    ['sliding window counter', (c) => c.slidingWindowCounter({ limit: 1e9, window: '1h' })],
    ['sliding window log', (c) => c.slidingWindowLog({ limit: 1e6, window: '1h' })],
    ['token bucket', (c) => c.tokenBucket({ capacity: 1e9, refillRate: 1, interval: '1s' })],
    ['leaky bucket', (c) => c.leakyBucket({ capacity: 1e9, leakRate: 1, interval: '1s' })],
    ['GCRA', (c) => c.gcra({ rate: 1e6, period: '1s', burst: 1e9 })],
    ['calendar quota', (c) => c.calendarQuota({ limit: 1e9, period: 'day' })],
  ].map(([name, make]) => floodgate(`Floodgate ${name}, 256 in flight (batched)`, make, IN_FLIGHT)),
]
if (!process.argv.includes('--sequential-only')) CASES.push(...CONCURRENT)
/** `--only <text>`: only the cases whose label holds it (the floor and rate-limit-redis are always counted). */
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined
const chosen = CASES.filter(
  (c, i) => !only || i === 0 || c.label.startsWith('rate-limit-redis') || c.label.includes(only),
)

if (!hasValgrind()) throw new Error('valgrind is not installed: apt-get install -y valgrind')
const rows = []
for (const testCase of chosen) {
  const small = await countRedis(testCase, SMALL)
  const large = await countRedis(testCase, LARGE)
  const perCall = Math.round((large - small) / (LARGE - SMALL))
  rows.push({ label: testCase.label, perCall, inFlight: testCase.inFlight ?? 1 })
  process.stderr.write(`${testCase.label}: ${perCall}\n`)
}
const floor = rows[0].perCall
/** rate-limit-redis's count at the same concurrency: what each row is compared with. */
const rateLimitRedis = (inFlight) =>
  rows.find((r) => r.label.startsWith('rate-limit-redis') && r.inFlight === inFlight).perCall
console.log(
  '| what Redis runs per decision | instructions | over the floor | x rate-limit-redis (same concurrency) |',
)
console.log('|---|---:|---:|---:|')
for (const { label, perCall, inFlight } of rows) {
  const over = perCall - floor
  console.log(
    `| ${label} | ${perCall.toLocaleString('en-US')} | ${over >= 0 ? '+' : ''}${over.toLocaleString('en-US')} | ${(perCall / rateLimitRedis(inFlight)).toFixed(2)}x |`,
  )
}
