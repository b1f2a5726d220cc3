// Express with its rate limiter's metrics at /metrics, for Prometheus to scrape: how many requests each
// policy allowed and refused, how many came near the limit, how many the load shedder turned away.
// The numbers are small so that you can watch them with curl:
//
//   PORT=3000 node server.mjs
//   curl -i http://127.0.0.1:3000/hello             # the 6th within a minute is a 429
//   curl -i http://127.0.0.1:3000/ping              # skipped: never limited
//   curl -s http://127.0.0.1:3000/metrics | grep '^floodgate_'
import { fixedWindow, slidingWindowLog } from '@floodgate/core'
import { loadShedder, rateLimit } from '@floodgate/express'
import { prometheus } from '@floodgate/metrics/prometheus'
import express from 'express'
import { Registry } from 'prom-client'

// A registry of the app's own: /metrics serves it. One sink for everything that reports (a RedisStore would
// take it too: `new RedisStore({ client, metrics })`).
const register = new Registry()
const metrics = prometheus({ register })

const app = express()

// Not limited, not counted: the load balancer's check and Prometheus's scrape.
app.get('/health', (_req, res) => {
  res.json({ ok: true })
})
app.get('/metrics', async (_req, res) => {
  res.set('content-type', register.contentType)
  res.send(await register.metrics())
})

// Shed requests (503) past 64 in flight: floodgate_shed_total counts them.
app.use(loadShedder({ maxInFlight: 64, metrics }))

// Two policies per IP: 5 in any rolling minute, and 20 a second that only a burst meets. /ping is skipped
// (counted as skipped, never limited).
app.use(
  rateLimit({
    limits: [
      { name: 'per-minute', key: 'ip', algorithm: slidingWindowLog({ limit: 5, window: '1m' }) },
      { name: 'per-second', key: 'ip', algorithm: fixedWindow({ limit: 20, window: '1s' }) },
    ],
    skip: (req) => req.path === '/ping',
    metrics,
  }),
)
app.get('/hello', (_req, res) => {
  res.json({ hello: 'world' })
})
app.get('/ping', (_req, res) => {
  res.json({ pong: true })
})

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', (error) => {
  if (error) throw error
  console.log(`metrics listening on http://127.0.0.1:${server.address().port}`)
})
const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
