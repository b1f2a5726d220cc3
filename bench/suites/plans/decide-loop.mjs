// A loop of `n` handler decisions after a warm-up of 30,000, for bench/suites/plans.mjs's instruction counts:
//
//   node bench/suites/plans/decide-loop.mjs <one|two|plan> <n>
//   node bench/suites/plans/decide-loop.mjs <one|two|plan> redis=<port> <n>
//
//   one:  one policy, a token bucket per API key
//   two:  two policies per API key, a token bucket and a daily quota, as plain `limits`
//   plan: a usage plan (the same two policies), its plan looked up (from the cache) per request
//
// On the MemoryStore, or on a RedisStore at 127.0.0.1:<port> (its own prefix, deleted after): the count is
// then the Node process's instructions per decision, the CPU a decision costs the app (the round trip and
// the script are the Redis server's). Under valgrind a busy machine can stall the process past a store
// timeout, and a timed-out call is an error path, not a decision: the timeouts are off, and the loop fails
// if any request was not decided by the store.
import { calendarQuota, MemoryStore, tokenBucket } from '@floodgate/core'
import { createRateLimitHandler } from '@floodgate/core/internal'
import { API_KEYS, request } from './requests.mjs'

const BIG = 1e9
// Buckets hold 1e9 and refill 1 a minute (a plan's rate: 1/60 per second), so a key stays alive between
// visits as a window key does: refilled at 1e9 a second, a bucket would be full again a nanosecond after each
// hit, and its key, expired, would be forgotten and made anew on most visits.
const args = process.argv.slice(2)
const which = args[0]
const redisPort = args.length > 2 ? Number(args[1].replace('redis=', '')) : undefined
const count = args[args.length - 1]
const key = (req) => req.apiKey

let client
let prefix
async function makeStore() {
  if (redisPort === undefined) return new MemoryStore()
  const { RedisStore } = await import('@floodgate/redis')
  const { Redis } = await import('ioredis')
  client = new Redis({ port: redisPort, host: '127.0.0.1' })
  prefix = `fg-plans-loop-${process.pid}:`
  return new RedisStore({ client, prefix, timeoutMs: 600_000 })
}
const store = await makeStore()

const handlers = {
  one: () =>
    createRateLimitHandler({
      store,
      storeTimeout: false,
      key,
      algorithm: tokenBucket({ capacity: BIG, refillRate: 1, interval: '1m' }),
    }),
  two: () =>
    createRateLimitHandler({
      store,
      storeTimeout: false,
      limits: [
        { name: 'rate', key, algorithm: tokenBucket({ capacity: BIG, refillRate: 1, interval: '1m' }) },
        { name: 'quota', key, algorithm: calendarQuota({ limit: BIG, period: 'day' }) },
      ],
    }),
  plan: () =>
    createRateLimitHandler({
      store,
      storeTimeout: false,
      plans: { free: { rate: 1 / 60, burst: BIG, quota: { limit: BIG, period: 'day' } } },
      apiKey: key,
      planOf: () => 'free',
    }),
}
const handler = handlers[which]()
let undecided = 0
const decide = async (i) => {
  const outcome = await handler.handle(request(API_KEYS[i % 1000]))
  if (outcome.kind !== 'pass' || outcome.error !== undefined) undecided++
}
for (let i = 0; i < 30_000; i++) await decide(i)
for (let i = 0; i < Number(count); i++) await decide(i)
if (undecided > 0) throw new Error(`${which}: ${undecided} requests refused or not decided by the store`)
if (client) {
  const keys = await client.keys(`${prefix}*`)
  for (let i = 0; i < keys.length; i += 500) await client.del(...keys.slice(i, i + 500))
  client.disconnect()
}
