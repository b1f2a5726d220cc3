// One app server of the three that run.mjs starts.
//   STORE=redis:  its counters live in the shared Redis (RedisStore): one round trip per request, exact.
//   STORE=synced: it counts locally and syncs its counts to Redis every 50 ms (SyncedStore): in-memory speed, a
//                 global limit with a small, bounded overshoot.
//   STORE=memory: it counts alone, in its own MemoryStore: the limit multiplies by the number of servers.
//
//   STORE=redis PREFIX=demo PORT=3001 node server.mjs
//
// Environment: PORT (default 3000), STORE ('redis', 'synced' or 'memory', default 'redis'), LIMIT (default 100
// an hour), PREFIX (the key prefix in Redis, default 'floodgate-example'), REDIS_URL (default
// redis://127.0.0.1:6379/11: database 11, so the example never touches your other data).
import { MemoryStore, slidingWindowCounter } from '@floodgate/core'
import { rateLimit } from '@floodgate/express'
import { RedisStore, SyncedStore } from '@floodgate/redis'
import express from 'express'
import { Redis } from 'ioredis'

const kind = process.env.STORE ?? 'redis'
const limit = Number(process.env.LIMIT ?? 100)
const redis = kind === 'memory' ? undefined : new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/11')
const shared = redis && new RedisStore({ client: redis, prefix: process.env.PREFIX ?? 'floodgate-example' })
const store =
  kind === 'synced' ? new SyncedStore({ store: shared, syncEvery: '50ms' }) : (shared ?? new MemoryStore())

const app = express()
// 100 an hour per client IP, on the sliding window counter (the default algorithm): within one window it counts
// exactly, so the only difference between the three stores is where they count. A decision waits for Redis at
// most a second; past it (or while Redis is down), failMode decides: 'open' lets the request through.
app.use(
  rateLimit({
    store,
    algorithm: slidingWindowCounter({ limit, window: '1h' }),
    failMode: 'open',
    storeTimeout: '1s',
  }),
)
app.get('/', (_req, res) => {
  res.json({ server: process.pid })
})

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', (error) => {
  if (error) throw error
  console.log(`multi-instance (${kind}) listening on http://127.0.0.1:${server.address().port}`)
})
const stop = () => {
  server.close(async () => {
    await store.close() // a SyncedStore sends the counts it has not synced yet
    await redis?.quit()
    process.exit(0)
  })
  server.closeAllConnections()
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
