// Express with a concurrency limit on a slow export: a client may have one export in flight; a second one at
// the same time is refused (429, Retry-After: 1) until the first ends or its client leaves. A rate limit of 30
// exports a minute sits beside it, and both are decided as one: a request either refuses holds nothing and
// spends nothing. Watch it with curl:
//
//   PORT=3000 node server.mjs
//   curl -sN http://127.0.0.1:3000/export &   # streams for 5 s
//   curl -si http://127.0.0.1:3000/export | head -1   # HTTP/1.1 429 while the first runs
import { concurrency, MemoryStore, slidingWindowCounter } from '@floodgate/core'
import { rateLimit } from '@floodgate/express'
import express from 'express'

const app = express()

app.get(
  '/export',
  rateLimit({
    store: new MemoryStore(), // a RedisStore shares the leases between servers
    limits: [
      // One unit per export in flight, given back when its response ends or its client leaves; a unit that a
      // crashed server never gives back is free again after the lease.
      { name: 'exports', key: 'ip', algorithm: concurrency({ limit: 1, lease: '5m' }) },
      { name: 'rate', key: 'ip', algorithm: slidingWindowCounter({ limit: 30, window: '1m' }) },
    ],
  }),
  (req, res) => {
    // A slow export: a line every 100 ms, 50 lines. req.rateLimit.remaining: exports this client may still start.
    res.type('text/plain')
    res.write(`exports you may still start now: ${req.rateLimit.remaining}\n`)
    let line = 0
    const timer = setInterval(() => {
      res.write(`row ${++line}\n`)
      if (line === 50) res.end()
    }, 100)
    res.once('close', () => clearInterval(timer))
  },
)
app.get('/health', (_req, res) => {
  res.json({ ok: true })
})

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', (error) => {
  if (error) throw error
  console.log(`concurrency listening on http://127.0.0.1:${server.address().port}`)
})
const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
