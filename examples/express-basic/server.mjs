// Express with the layered pattern: a loose per-IP limit to catch raw floods, a per-user limit for fairness
// once the caller is known, and a stricter per-endpoint limit on an expensive route.
// The numbers are small so that you can watch them with curl:
//
//   PORT=3000 node server.mjs
//   curl -i http://127.0.0.1:3000/me -H 'x-user: alice'
//   curl -i -X POST http://127.0.0.1:3000/reports -H 'x-user: alice'   # the 4th within a minute is a 429
//   curl -i -X POST 'http://127.0.0.1:3000/v1/chat?max_tokens=500&used=100' -H 'x-user: alice'
import { MemoryStore, slidingWindowCounter, slidingWindowLog, tokenBucket } from '@floodgate/core'
import { rateLimit } from '@floodgate/express'
import express from 'express'

// Every limiter below shares this store: policies with the same name and algorithm share their counters,
// so the 'ip' and 'user' budgets are one per client across all routes.
const store = new MemoryStore()

/** Per IP: bursts of up to 30, then 30 an hour (one every 2 minutes). Catches a client that rotates user ids. */
const perIp = {
  name: 'ip',
  key: 'ip',
  algorithm: tokenBucket({ capacity: 30, refillRate: 30, interval: '1h' }),
}
/** Per user: 10 a minute. A request with no user (before login) is counted by its IP instead. */
const perUser = { name: 'user', key: 'user', algorithm: slidingWindowCounter({ limit: 10, window: '1m' }) }
/** Per user and endpoint, for the expensive route: 3 a minute, exact over every rolling minute. */
const perReport = {
  name: 'reports',
  key: ['user', 'endpoint'],
  algorithm: slidingWindowLog({ limit: 3, window: '1m' }),
}

/** One middleware checks all of a route's policies at once: a request one refuses spends nothing in the others. */
const limit = (...extra) =>
  rateLimit({
    store,
    limits: [perIp, perUser, ...extra],
    user: (req) => req.user?.id,
  })

/**
 * Settled costs, as an LLM API needs them: 1,000 tokens an hour per user. A chat is charged its most up front
 * (`max_tokens`, so a user cannot start what they cannot afford), then settled with the tokens it actually used:
 * the rest is given back, and a chat that used more takes the user over the limit, so the next one waits.
 */
const maxTokens = (req) => Math.min(1000, Math.max(1, Number.parseInt(req.query.max_tokens, 10) || 200))
const tokens = rateLimit({
  store,
  name: 'tokens',
  key: 'user',
  user: (req) => req.user?.id,
  algorithm: tokenBucket({ capacity: 1000, refillRate: 1000, interval: '1h' }),
  cost: maxTokens,
  settle: (res) => res.locals.usage.totalTokens,
})

/** A stand-in for a model: it "generates" `used` tokens (a query parameter, so that you can choose). */
const generate = (req) => Math.max(0, Number.parseInt(req.query.used, 10) || 50)

const app = express()

// A stand-in for real authentication: `x-user: alice` logs in as alice.
app.use((req, _res, next) => {
  const id = req.get('x-user')
  if (id) req.user = { id }
  next()
})

// Not limited: a load balancer's health check.
app.get('/health', (_req, res) => {
  res.json({ ok: true })
})
app.get('/', limit(), (_req, res) => {
  res.json({ hello: 'world' })
})
// req.rateLimit is what the limiter decided: where each policy stands.
app.get('/me', limit(), (req, res) => {
  const remaining = Object.fromEntries(req.rateLimit.policies.map((p) => [p.policy, p.remaining]))
  res.json({ user: req.user?.id ?? null, remaining })
})
app.post('/reports', limit(perReport), (req, res) => {
  res.status(202).json({ report: 'queued', for: req.user?.id ?? null })
})

// The settle function reads the usage the handler leaves in res.locals once the response is done.
app.post('/v1/chat', tokens, (req, res) => {
  res.locals.usage = { totalTokens: generate(req) }
  res.json({ usage: res.locals.usage, estimated: maxTokens(req) })
})
// A streamed answer knows its count at its end: it settles itself (the settle function is then not called).
app.post('/v1/chat/stream', tokens, (req, res) => {
  res.type('text/plain')
  const used = generate(req)
  for (let i = 0; i < used; i++) res.write('token ')
  req.rateLimit.settle(used)
  res.end()
})

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', (error) => {
  if (error) throw error
  console.log(`express-basic listening on http://127.0.0.1:${server.address().port}`)
})
const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
