// Express with a slow-down on the login route: the first 3 attempts of a client in 15 minutes go at once, each
// later one waits 100 ms more than the one before (100 ms, 200 ms, 300 ms), never more than 300 ms, and none is
// refused. A rate limit behind it refuses a client that keeps going past 8. The numbers are small so that you
// can watch them with curl (a real login would take `delay: '500ms', maxDelay: '10s'`): Watch it with curl:
//
//   PORT=3000 node server.mjs
//   curl -si -X POST http://127.0.0.1:3000/login | grep -i -e floodgate-delay -e '^{'
import { MemoryStore } from '@floodgate/core'
import { rateLimit, slowDown } from '@floodgate/express'
import express from 'express'

// One store for both: the slow-down's keys (`slow-down|...`) and the limit's (`login|...`) never meet.
const store = new MemoryStore()

const app = express()

app.post(
  '/login',
  slowDown({ store, after: 3, delay: '100ms', maxDelay: '300ms', window: '15m' }),
  rateLimit({ store, name: 'login', limit: 8, window: '15m' }),
  (req, res) => {
    // req.slowDown is what the slow-down decided: this attempt's number, and how long it waited.
    const { used, delay } = req.slowDown
    res.status(401).json({ error: 'wrong_password', attempt: used, delayed: delay })
  },
)
app.get('/health', (_req, res) => {
  res.json({ ok: true })
})

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', (error) => {
  if (error) throw error
  console.log(`slow-down listening on http://127.0.0.1:${server.address().port}`)
})
const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
