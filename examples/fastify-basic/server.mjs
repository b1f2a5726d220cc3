// Fastify with the layered pattern: a loose per-IP limit to catch raw floods, a per-user limit for fairness
// once the caller is known, and a stricter per-endpoint limit on an expensive route.
// The numbers are small so that you can watch them with curl:
//
//   PORT=3000 node server.mjs
//   curl -i http://127.0.0.1:3000/me -H 'x-user: alice'
//   curl -i -X POST http://127.0.0.1:3000/reports -H 'x-user: alice'   # the 4th within a minute is a 429
import { slidingWindowCounter, slidingWindowLog, tokenBucket } from '@floodgate/core'
import { rateLimit } from '@floodgate/fastify'
import Fastify from 'fastify'

/** Per IP: bursts of up to 30, then 30 an hour (one every 2 minutes). Catches a client that rotates user ids. */
const perIp = {
  name: 'ip',
  key: 'ip',
  algorithm: tokenBucket({ capacity: 30, refillRate: 30, interval: '1h' }),
}
/**
 * Per user: 10 a minute. A request with no user (before login) is counted by its IP instead. Users whose id
 * starts with `trial-` get 2 a minute (an override: exact ids beat patterns, longer patterns beat shorter ones),
 * and the admin route below changes overrides at runtime.
 */
const perUser = {
  name: 'user',
  key: 'user',
  algorithm: slidingWindowCounter({ limit: 10, window: '1m' }),
  overrides: { 'trial-*': slidingWindowCounter({ limit: 2, window: '1m' }) },
}
/** Per user and endpoint, for the expensive route: 3 a minute, exact over every rolling minute. */
const perReport = {
  name: 'reports',
  key: ['user', 'endpoint'],
  algorithm: slidingWindowLog({ limit: 3, window: '1m' }),
}

const app = Fastify()

// A stand-in for real authentication: `x-user: alice` logs in as alice. App-wide onRequest hooks run before
// the limiter's route-level hook, so the limiter sees request.user.
app.decorateRequest('user', null)
app.addHook('onRequest', async (request) => {
  const id = request.headers['x-user']
  if (typeof id === 'string' && id !== '') request.user = { id }
})

// Every route registered after this is limited by 'ip' and 'user' (all policies checked at once), with the
// draft-8 headers: one item per policy.
await app.register(rateLimit, {
  prefix: 'api',
  limits: [perIp, perUser],
  user: (request) => request.user?.id,
  headers: 'draft-8',
})

// Change a per-user override at runtime, without a restart: POST /admin/overrides/trial-*?limit=1. Kept in the
// store, so every server sharing it applies it (a RedisStore: within a second). Put a route like this behind
// your own authentication.
app.post('/admin/overrides/:pattern', { config: { rateLimit: false } }, async (request) => {
  const { pattern } = request.params
  const limit = Number(request.query.limit)
  await app.rateLimitOverrides.set('user', pattern, slidingWindowCounter({ limit, window: '1m' }))
  return { pattern, limit }
})

// Not limited: a load balancer's health check.
app.get('/health', { config: { rateLimit: false } }, async () => ({ ok: true }))

app.get('/', async () => ({ hello: 'world' }))

// request.rateLimit is what the limiter decided: where each policy stands.
app.get('/me', async (request) => ({
  user: request.user?.id ?? null,
  remaining: Object.fromEntries(request.rateLimit.policies.map((p) => [p.policy, p.remaining])),
}))

// The expensive route: its own policies replace the app's. It lists 'ip' and 'user' too and names the app's
// prefix, so those two share their counters with every other route; a request 'reports' refuses spends
// nothing in them.
app.post(
  '/reports',
  { config: { rateLimit: { prefix: 'api', limits: [perIp, perUser, perReport] } } },
  async (request, reply) => reply.code(202).send({ report: 'queued', for: request.user?.id ?? null }),
)

const address = await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' })
console.log(`fastify-basic listening on ${address}`)
const stop = () => app.close().then(() => process.exit(0))
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
