// CPU instructions one decision costs the app server's process (the store and its Redis client), counted by
// valgrind's callgrind (the same count whatever else the machine is doing), with 1 and with 256 in flight on
// 1,000 keys, against a redis-server of its own:
//
//   node bench/suites/redis/client-count.mjs                      # Floodgate (batched and not) and rate-limit-redis
//   node bench/suites/redis/client-count.mjs --before <index.js>  # also another build of @floodgate/redis
//   node bench/suites/redis/client-count.mjs --in-flight 256      # one concurrency only
//   node bench/suites/redis/client-count.mjs --decisions 4000,12000  # shorter runs (default 20000,60000)

import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hasValgrind, instructionsPerOperation } from '../../lib/instructions.mjs'
import { startPrivateRedis } from '../../lib/redis-server.mjs'

const { values } = parseArgs({
  options: {
    before: { type: 'string' },
    'in-flight': { type: 'string' },
    decisions: { type: 'string' },
  },
})
/** The two runs' decisions (their difference is what is counted). */
const [small, large] = (values.decisions ?? '20000,60000').split(',').map(Number)
const inFlights = (values['in-flight'] ?? '1,256').split(',')
const contenders = [
  ...(values.before ? [`floodgate@${values.before}`] : []),
  'floodgate',
  'floodgate-unbatched',
  'rate-limit-redis',
]
if (!hasValgrind()) throw new Error('valgrind is not installed: apt-get install -y valgrind')
const redis = await startPrivateRedis()
if (!redis) throw new Error('could not start redis-server')
const loop = fileURLToPath(new URL('client-loop.mjs', import.meta.url))
try {
  for (const inFlight of inFlights) {
    const counts = {}
    for (const id of contenders) {
      counts[id] = instructionsPerOperation(loop, [id, String(redis.port), inFlight], {
        small,
        large,
      })
      const label = id.startsWith('floodgate@') ? 'floodgate (--before build)' : id
      console.log(`${inFlight} in flight, ${label}: ${Math.round(counts[id])} instructions per decision`)
    }
    console.log(
      `${inFlight} in flight, floodgate / rate-limit-redis: ${(counts.floodgate / counts['rate-limit-redis']).toFixed(2)}x`,
    )
  }
} finally {
  await redis.stop()
}
