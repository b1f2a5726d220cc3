// Koa and @koa/router with the layered pattern: a loose per-IP limit to catch raw floods, a per-user limit
// for fairness once the caller is known, and a stricter per-endpoint limit on an expensive route. The numbers are small so that you can watch them with curl:
//
//   PORT=3000 node server.mjs
//   curl -i http://127.0.0.1:3000/me -H 'x-user: alice'
//   curl -i -X POST http://127.0.0.1:3000/reports -H 'x-user: alice'   # the 4th within a minute is a 429
import { MemoryStore, slidingWindowCounter, slidingWindowLog, tokenBucket } from '@floodgate/core'
import { rateLimit } from '@floodgate/koa'
import Router from '@koa/router'
import Koa from 'koa'

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
    user: (ctx) => ctx.state.user?.id,
    headers: 'draft-7',
  })

const app = new Koa()
const router = new Router()

// A stand-in for real authentication: `x-user: alice` logs in as alice.
app.use(async (ctx, next) => {
  const id = ctx.get('x-user')
  if (id) ctx.state.user = { id }
  await next()
})

// Not limited: a load balancer's health check.
router.get('/health', (ctx) => {
  ctx.body = { ok: true }
})
router.get('/', limit(), (ctx) => {
  ctx.body = { hello: 'world' }
})
// ctx.state.rateLimit is what the limiter decided: where each policy stands.
router.get('/me', limit(), (ctx) => {
  const remaining = Object.fromEntries(ctx.state.rateLimit.policies.map((p) => [p.policy, p.remaining]))
  ctx.body = { user: ctx.state.user?.id ?? null, remaining }
})
router.post('/reports', limit(perReport), (ctx) => {
  ctx.status = 202
  ctx.body = { report: 'queued', for: ctx.state.user?.id ?? null }
})
app.use(router.routes()).use(router.allowedMethods())

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`koa-basic listening on http://127.0.0.1:${server.address().port}`)
})
const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
