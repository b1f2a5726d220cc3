// A loop of `n` decisions against a Redis on 127.0.0.1:`port`, `inFlight` at a time, 1,000 keys round robin,
// for counting what a store and its client cost the app server (count with client-count.mjs beside it):
//
//   node bench/suites/redis/client-loop.mjs <contender> <port> <inFlight> <n>
//
// Contenders: `floodgate` (a RedisStore with the sliding window counter on ioredis with `enableAutoPipelining`,
// as the redis suite calls it, every decision checked to come from Redis), `floodgate-unbatched` (the same
// with `batch: false`), `floodgate@<path>` (the same from another build of @floodgate/redis: its dist/index.js),
// `rate-limit-redis` (its store's increment through ioredis's `call`, as its docs show).
import { pathToFileURL } from 'node:url'
import { Redis } from 'ioredis'

const KEYS = Array.from({ length: 1_000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`)
const [id, port, inFlight, count] = process.argv.slice(2)
const redis = new Redis({ port: Number(port), enableAutoPipelining: true })
await redis.ping()

async function contender() {
  if (id.startsWith('floodgate')) {
    const core = await import('@floodgate/core')
    const build = id.startsWith('floodgate@')
      ? pathToFileURL(id.slice('floodgate@'.length)).href
      : '@floodgate/redis'
    const { RedisStore } = await import(build)
    const algorithm = core.slidingWindowCounter({ limit: 1e9, window: '1h' })
    // No deadline within reach: under valgrind a call waits far longer than in real time, and one that timed
    // out would reject without Redis, and cost less than a real decision.
    const store = new RedisStore({
      client: redis,
      prefix: `fgclient:${process.pid}`,
      ...(id === 'floodgate-unbatched' ? { batch: false } : {}),
    })
    store.answerWithin(600_000)
    return async (key) => {
      const decision = await store.consume(algorithm, key, 1)
      if (decision.source !== 'redis')
        throw new Error(`a decision did not come from Redis: ${decision.source}`)
      return decision.allowed
    }
  }
  if (id === 'rate-limit-redis') {
    const { RedisStore } = await import('rate-limit-redis')
    const store = new RedisStore({
      sendCommand: (...c) => redis.call(...c),
      prefix: `rlrclient:${process.pid}:`,
    })
    store.init({ windowMs: 3_600_000 })
    return async (key) => (await store.increment(key)).totalHits <= 1e9
  }
  throw new Error(
    `unknown contender ${id}: floodgate, floodgate-unbatched, floodgate@<path> or rate-limit-redis`,
  )
}

const decide = await contender()
async function run(total) {
  let next = 0
  const worker = async () => {
    while (next < total) await decide(KEYS[next++ % KEYS.length])
  }
  await Promise.all(Array.from({ length: Number(inFlight) }, worker))
}
await run(5_000) // warm-up: every key exists, the code is optimized
await run(Number(count))
redis.disconnect()
