// A loop of `n` handler decisions after a warm-up of 30,000, for bench/suites/plans.mjs's instruction counts:
//
//   node bench/suites/plans/decide-loop.mjs <one|two|plan> <n>
//
//   one:  one policy, a token bucket per API key
//   two:  two policies per API key, a token bucket and a daily quota, as plain `limits`
//   plan: a usage plan (the same two policies), its plan looked up (from the cache) per request
import { calendarQuota, createRateLimitHandler, MemoryStore, tokenBucket } from '@floodgate/core'

const BIG = 1e9
const [which, count] = process.argv.slice(2)
const key = (req) => req.apiKey
const handlers = {
  one: () =>
    createRateLimitHandler({
      store: new MemoryStore(),
      key,
      algorithm: tokenBucket({ capacity: BIG, refillRate: BIG }),
    }),
  two: () =>
    createRateLimitHandler({
      store: new MemoryStore(),
      limits: [
        { name: 'rate', key, algorithm: tokenBucket({ capacity: BIG, refillRate: BIG }) },
        { name: 'quota', key, algorithm: calendarQuota({ limit: BIG, period: 'day' }) },
      ],
    }),
  plan: () =>
    createRateLimitHandler({
      store: new MemoryStore(),
      plans: { free: { rate: BIG, burst: BIG, quota: { limit: BIG, period: 'day' } } },
      apiKey: key,
      planOf: () => 'free',
    }),
}
const handler = handlers[which]()
const request = (apiKey) => ({
  ip: '203.0.113.7',
  method: 'GET',
  route: '/v1/items',
  path: '/v1/items',
  headers: {},
  native: { apiKey },
})
const keys = Array.from({ length: 1000 }, (_, i) => `key-${i}`)
for (let i = 0; i < 30_000; i++) await handler.handle(request(keys[i % 1000]))
for (let i = 0; i < Number(count); i++) await handler.handle(request(keys[i % 1000]))
