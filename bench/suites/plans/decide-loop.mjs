// A loop of `n` handler decisions after a warm-up of 30,000, for bench/suites/plans.mjs's instruction counts:
//
//   node bench/suites/plans/decide-loop.mjs <one|two|plan> <n>
//
//   one:  one policy, a token bucket per API key
//   two:  two policies per API key, a token bucket and a daily quota, as plain `limits`
//   plan: a usage plan (the same two policies), its plan looked up (from the cache) per request
import { calendarQuota, createRateLimitHandler, MemoryStore, tokenBucket } from '@floodgate/core'
import { API_KEYS, request } from './requests.mjs'

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
for (let i = 0; i < 30_000; i++) await handler.handle(request(API_KEYS[i % 1000]))
for (let i = 0; i < Number(count); i++) await handler.handle(request(API_KEYS[i % 1000]))
