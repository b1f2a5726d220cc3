// What one decision costs Redis, in CPU instructions of the redis-server process (valgrind's callgrind: the
// same count whatever else the machine is doing), piece by piece: the floor of any EVALSHA, each command a
// script may run, the peers' scripts and Floodgate's. Each case runs against a redis-server of its own under
// callgrind, twice (SMALL and LARGE sequential calls); the difference over the difference in calls is one
// call, so start-up, script loading and connection set-up cancel.
//
//   node bench/suites/redis/script-cost.mjs            # about 2 minutes
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
const floodgate = (label, make) => ({
  label,
  async prepare(client) {
    const core = await import('@floodgate/core')
    const { RedisStore } = await import('@floodgate/redis')
    const store = new RedisStore({ client, prefix: 'cost' })
    const algorithm = make(core)
    let i = 0
    return () => store.consume(algorithm, `10.0.0.${i++ % KEYS}`, 1)
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
  })
  if (!redis) throw new Error('could not start redis-server under valgrind')
  const client = new Redis({ port: redis.port, maxRetriesPerRequest: 0 })
  try {
    const call = await testCase.prepare(client)
    for (let i = 0; i < calls; i++) await call()
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

if (!hasValgrind()) throw new Error('valgrind is not installed: apt-get install -y valgrind')
const rows = []
for (const testCase of CASES) {
  const small = await countRedis(testCase, SMALL)
  const large = await countRedis(testCase, LARGE)
  const perCall = Math.round((large - small) / (LARGE - SMALL))
  rows.push({ label: testCase.label, perCall })
  process.stderr.write(`${testCase.label}: ${perCall}\n`)
}
const floor = rows[0].perCall
const peer = rows.find((r) => r.label.startsWith('rate-limit-redis')).perCall
console.log('| what Redis runs per call | instructions | over the floor | x rate-limit-redis |')
console.log('|---|---:|---:|---:|')
for (const { label, perCall } of rows) {
  const over = perCall - floor
  console.log(
    `| ${label} | ${perCall.toLocaleString('en-US')} | ${over >= 0 ? '+' : ''}${over.toLocaleString('en-US')} | ${(perCall / peer).toFixed(2)}x |`,
  )
}
