// A loop of `n` decisions against a Redis on 127.0.0.1:`port`, 256 in flight, 1,000 keys round robin, for
// counting what a store and its client cost the app server (count with client-count.mjs beside it):
//
//   node bench/suites/redis/client-loop.mjs <floodgate|rate-limit-redis> <port> <n>
//
// Floodgate: a RedisStore with the sliding window counter on ioredis (`enableAutoPipelining`), as the
// redis suite calls it, every decision checked to come from Redis; rate-limit-redis: its store's increment through ioredis's `call`, as its docs show.
import { Redis } from 'ioredis'

const IN_FLIGHT = 256
const KEYS = Array.from({ length: 1_000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`)
const [id, port, count] = process.argv.slice(2)
const redis = new Redis({ port: Number(port), enableAutoPipelining: true })
await redis.ping()

async function contender() {
  if (id === 'floodgate') {
    const core = await import('@floodgate/core')
    const { RedisStore } = await import('@floodgate/redis')
    const algorithm = core.slidingWindowCounter({ limit: 1e9, window: '1h' })
    // No deadline within reach: under valgrind a call waits far longer than in real time, and one that timed
    // out would be decided by the fail mode, without Redis, and cost less than a real decision.
    const store = new RedisStore({ client: redis, prefix: `fgclient:${process.pid}`, timeoutMs: 600_000 })
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
  throw new Error(`unknown contender ${id}: floodgate or rate-limit-redis`)
}

const decide = await contender()
async function run(total) {
  let next = 0
  const worker = async () => {
    while (next < total) await decide(KEYS[next++ % KEYS.length])
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
}
await run(5_000) // warm-up: every key exists, the code is optimized
await run(Number(count))
redis.disconnect()
