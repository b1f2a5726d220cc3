// CPU instructions one decision costs the app server's process (the store and its Redis client), counted by
// valgrind's callgrind (the same count whatever else the machine is doing), at 256 in flight on 1,000 keys,
// against a redis-server of its own:
//
//   node bench/suites/redis/client-count.mjs            # Floodgate and rate-limit-redis, ~3 minutes
import { fileURLToPath } from 'node:url'
import { hasValgrind, instructionsPerOperation } from '../../lib/instructions.mjs'
import { startPrivateRedis } from '../../lib/redis-server.mjs'

if (!hasValgrind()) throw new Error('valgrind is not installed: apt-get install -y valgrind')
const redis = await startPrivateRedis()
if (!redis) throw new Error('could not start redis-server')
const loop = fileURLToPath(new URL('client-loop.mjs', import.meta.url))
try {
  const counts = {}
  for (const id of ['floodgate', 'rate-limit-redis']) {
    counts[id] = instructionsPerOperation(loop, [id, String(redis.port)], { small: 20_000, large: 60_000 })
    console.log(`${id}: ${Math.round(counts[id])} instructions per decision`)
  }
  console.log(`floodgate / rate-limit-redis: ${(counts.floodgate / counts['rate-limit-redis']).toFixed(2)}x`)
} finally {
  await redis.stop()
}
