// An API sold in usage plans attached to API keys, as API gateways do it: each plan a rate (a token bucket
// per key: `rate` a second, `burst` at once) and a hard quota per calendar period, checked as one. Requests
// without a key get the anonymous plan, per client address. Support staff read and reset a key's usage.
// The numbers are small so that you can watch them with curl:
//
//   PORT=3000 node server.mjs
//   curl -i http://127.0.0.1:3000/v1/items -H 'x-api-key: demo-free'     # 5 at once, then 1 a second
//   curl -i http://127.0.0.1:3000/admin/usage/demo-free                   # used and remaining
import { fixedWindow } from '@floodgate/core'
import { rateLimit } from '@floodgate/express'
import express from 'express'

/** The plans: a rate and burst per API key, and a quota per calendar period (UTC). */
const plans = {
  free: { rate: 1, burst: 5, quota: { limit: 20, period: 'day' } },
  pro: { rate: 10, burst: 50, quota: { limit: 1_000, period: 'month' } },
}

/** The API keys this demo knows, as a database would answer; any other key is unknown (403). */
const accounts = new Map([
  ['demo-free', 'free'],
  ['demo-pro', 'pro'],
])

const limiter = rateLimit({
  plans,
  apiKey: (req) => req.get('x-api-key'),
  planOf: async (apiKey) => accounts.get(apiKey),
  anonymousPlan: 'free', // requests without a key: the free plan, per client address
  // A flood limit per address: it counts every request, those answered 401 and 403 too, and refuses a client
  // that has spent it before its key is looked up.
  limits: [{ name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 100, window: '1m' }) }],
  headers: 'draft-8',
})

const app = express()
app.get('/v1/items', limiter, (req, res) => {
  res.json({ items: ['a', 'b', 'c'], plan: req.rateLimit?.plan })
})

// Support staff: a key's usage, and a fresh quota. Put these behind your own authentication.
app.get('/admin/usage/:key', async (req, res) => {
  const usage = await limiter.usage.usage(req.params.key)
  if (usage === undefined) res.status(404).json({ error: 'unknown_key' })
  else res.json(usage)
})
app.post('/admin/usage/:key/reset', async (req, res) => {
  res.json({ reset: await limiter.usage.resetUsage(req.params.key) })
})

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`usage-plans listening on http://127.0.0.1:${server.address().port}`)
})
