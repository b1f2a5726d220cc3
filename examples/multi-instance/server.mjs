// One app server of the three that run.mjs starts. STORE=redis: its counters live in the shared Redis, so the
// three servers enforce one limit together. STORE=memory: each process counts alone, in its own MemoryStore.
//
//   STORE=redis PREFIX=demo PORT=3001 node server.mjs
//
// Environment: PORT (default 3000), STORE ('redis' or 'memory', default 'redis'), LIMIT (default 100 per
// minute), PREFIX (the RedisStore's key prefix, default 'floodgate-example'), REDIS_URL (default
// redis://127.0.0.1:6379/11: database 11, so the example never touches your other data).
import { MemoryStore, slidingWindowLog } from '@floodgate/core'
import { rateLimit } from '@floodgate/express'
import { RedisStore } from '@floodgate/redis'
import express from 'express'
import { Redis } from 'ioredis'

const kind = process.env.STORE ?? 'redis'
const limit = Number(process.env.LIMIT ?? 100)
const redis = kind === 'redis' ? new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/11') : undefined
const store = redis
  ? new RedisStore({ client: redis, prefix: process.env.PREFIX ?? 'floodgate-example', timeoutMs: 1000 })
  : new MemoryStore()

const app = express()
// 100 a minute per client IP, exact over every rolling minute (a sliding window log), so the count is exact.
app.use(rateLimit({ store, algorithm: slidingWindowLog({ limit, window: '1m' }) }))
app.get('/', (_req, res) => {
  res.json({ server: process.pid })
})

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', (error) => {
  if (error) throw error
  console.log(`multi-instance (${kind}) listening on http://127.0.0.1:${server.address().port}`)
})
const stop = () => {
  server.close(async () => {
    await redis?.quit()
    process.exit(0)
  })
  server.closeAllConnections()
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
