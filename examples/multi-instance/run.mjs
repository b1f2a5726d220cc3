// Three app servers behind a round-robin "load balancer", one client, a limit of 100 an hour.
//   1. The three share one Redis (RedisStore): exactly 100 requests pass, whichever server they hit; one round
//      trip to Redis per request.
//   2. The three count locally and sync their counts to Redis every 50 ms (SyncedStore): about 100 pass, at
//      in-memory speed, with an overshoot the SyncedStore bounds (printed).
//   3. Each counts alone in its own MemoryStore: 100 pass on each server, 300 in all: 3x the limit.
//
//   node run.mjs            (needs a Redis on 127.0.0.1:6379; it uses database 11 and its own key prefix)
//   node run.mjs --json     (also prints the counts as JSON on the last line)
//
// Environment: REDIS_URL (default redis://127.0.0.1:6379/11), REQUESTS (default 360), LIMIT (default 100).
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'

const here = dirname(fileURLToPath(import.meta.url))
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/11'
const REQUESTS = Number(process.env.REQUESTS ?? 360)
const LIMIT = Number(process.env.LIMIT ?? 100)
const SERVERS = 3
const CONCURRENCY = 24
const PREFIX = `floodgate-example-${process.pid}-${Date.now().toString(36)}`

let overshootBound
try {
  ;({ overshootBound } = await import('@floodgate/redis'))
} catch (error) {
  console.error(
    `The @floodgate packages could not be loaded (${error.message}). In the repository, build them first ` +
      '(npm run build, at the root); in a copy of this folder, npm install.',
  )
  process.exit(1)
}

/** Start one server.mjs; resolves with its URL and a stop function once it prints its address. */
function startServer(env) {
  const child = spawn(process.execPath, [join(here, 'server.mjs')], {
    env: { ...process.env, ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }
  return new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match) resolve({ url: match[1], stop })
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code) =>
      reject(new Error(`server.mjs exited (${code}) before listening:\n${output}`)),
    )
  })
}

/** Send `REQUESTS` GETs round-robin across the servers, `CONCURRENCY` at a time; count what passed where. */
async function burst(urls) {
  const passed = urls.map(() => 0)
  const refused = urls.map(() => 0)
  const other = []
  let next = 0
  async function worker() {
    while (next < REQUESTS) {
      const i = next++
      const server = i % urls.length
      const res = await fetch(`${urls[server]}/`)
      await res.arrayBuffer()
      if (res.status === 200) passed[server]++
      else if (res.status === 429) refused[server]++
      else other.push(res.status)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  if (other.length > 0) throw new Error(`unexpected statuses: ${[...new Set(other)].join(', ')}`)
  const total = passed.reduce((a, b) => a + b, 0)
  return { sent: REQUESTS, passed: total, refused: REQUESTS - total, perServer: passed }
}

/** Start three servers with `env`; `run()` sends them the burst, `stop()` ends them. */
async function servers(env) {
  const started = await Promise.allSettled(Array.from({ length: SERVERS }, () => startServer(env)))
  const up = started.filter((s) => s.status === 'fulfilled').map((s) => s.value)
  const stop = () => Promise.all(up.map((s) => s.stop()))
  const failed = started.find((s) => s.status === 'rejected')
  if (failed) {
    await stop()
    throw failed.reason
  }
  return { run: () => burst(up.map((s) => s.url)), stop }
}

/** Delete this run's keys (SCAN + DEL of our own prefix only; never FLUSHDB). Returns how many went. */
async function cleanUp(redis) {
  let cursor = '0'
  let removed = 0
  do {
    const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 1000)
    cursor = nextCursor
    if (keys.length > 0) removed += await redis.del(...keys)
  } while (cursor !== '0')
  return removed
}

const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null })
try {
  await redis.connect()
  await redis.ping()
} catch (error) {
  console.error(
    `No Redis answered at ${REDIS_URL} (${error.message}). Start one (\`redis-server --daemonize yes\`, or ` +
      '`docker run -p 6379:6379 redis`), or point REDIS_URL at yours.',
  )
  process.exit(1)
}

console.log(
  `\n${SERVERS} Express servers, ${REQUESTS} requests from one client sent round-robin, ${CONCURRENCY} at a time.`,
)
console.log(`Limit: ${LIMIT} an hour per client IP (slidingWindowCounter, the default algorithm).\n`)

let results
let removed = 0
let fleets = []
try {
  // All nine processes start at once (startup is the slow part); the three bursts run one after the other. The
  // Redis and synced fleets use prefixes of their own, so that they never count the same keys.
  const started = await Promise.allSettled([
    servers({ STORE: 'redis', PREFIX: `${PREFIX}:redis`, REDIS_URL, LIMIT: String(LIMIT) }),
    servers({ STORE: 'synced', PREFIX: `${PREFIX}:synced`, REDIS_URL, LIMIT: String(LIMIT) }),
    servers({ STORE: 'memory', LIMIT: String(LIMIT) }),
  ])
  fleets = started.filter((s) => s.status === 'fulfilled').map((s) => s.value)
  const failed = started.find((s) => s.status === 'rejected')
  if (failed) throw failed.reason
  const shared = await fleets[0].run()
  const synced = await fleets[1].run()
  const local = await fleets[2].run()
  results = {
    prefix: PREFIX,
    limit: LIMIT,
    redis: shared,
    synced,
    memory: local,
    bound: overshootBound({ limit: LIMIT }),
  }
} finally {
  await Promise.all(fleets.map((f) => f.stop()))
  removed = await cleanUp(redis)
  await redis.quit()
}

const row = (label, r) =>
  `  ${label.padEnd(34)}${String(r.passed).padStart(6)}${String(r.refused).padStart(9)}     ${r.perServer.join(' / ')}`
console.log(`  ${'store'.padEnd(34)}${'passed'.padStart(6)}${'refused'.padStart(9)}     passed per server`)
console.log(row('RedisStore, shared by all three', results.redis))
console.log(row('SyncedStore, synced every 50 ms', results.synced))
console.log(row('MemoryStore, one per process', results.memory))
const overshoot = results.synced.passed - LIMIT
console.log(
  `\n  Shared state: exactly ${results.redis.passed} passed, the limit, at one Redis round trip per request.` +
    `\n  Counted locally, synced: ${results.synced.passed} passed (${overshoot >= 0 ? '+' : ''}${overshoot} over the limit; ` +
    `the SyncedStore's bound is +${results.bound} in any window, whatever the traffic), no round trip on most requests.` +
    `\n  Counting per process: ${results.memory.passed} passed, ${Math.round(results.memory.passed / LIMIT)}x the limit.`,
)
console.log(`  Cleaned up: deleted the ${removed} Redis key(s) under this run's prefix, ${PREFIX}:\n`)
if (process.argv.includes('--json')) console.log(JSON.stringify({ ...results, removed }))
