import type { Duration } from '../../duration.js'
import type { Awaitable } from '../../types.js'
import type { PlanOptions, PolicyOptions, RequestFunction, RouteTierOptions } from './policy-types.js'

/** The options of usage plans (API keys, rates, quotas) and of tiers, part of {@link RateLimitOptions}. */
export interface PlanAndTierOptions<N = any> {
  /**
   * Tiers, outer to inner (an account ceiling, a stage, a route), each a policy as in `limits`: every tier
   * is checked on every request, all must allow, and a refused request spends nothing in any. An inner tier
   * can only be tighter than the one before it (its rate and its burst no higher): a looser one is a
   * `RateLimitConfigError` at creation. Tiers are keyed by their name alone (not `prefix`), so apps sharing
   * a store share their tiers.
   * @default none
   * @example [{ name: 'account', key: 'global', algorithm: tokenBucket({ capacity: 10_000, refillRate: 10_000 }) }, { name: 'stage', key: 'global', algorithm: tokenBucket({ capacity: 1_000, refillRate: 1_000 }) }]
   */
  tiers?: readonly PolicyOptions<N>[]
  /**
   * Tighter innermost tiers for some routes, by `'METHOD /pattern'` (the route pattern, as `'endpoint'` keys
   * have it): the route's tier replaces the innermost tier for its requests and keeps every outer one. It
   * must be tighter than the tier it replaces. Only with `tiers`.
   * @default none
   * @example { 'POST /reports': { limit: 10, window: '1s' } }
   */
  routes?: Readonly<Record<string, RouteTierOptions>>
  /**
   * Usage plans by name (API gateway style): each a token bucket per API key (`rate`, `burst`) and an
   * optional calendar `quota`, checked together with `limits` and `tiers`. Needs `apiKey` and `planOf`.
   * Over the rate: 429 `rate_limited`; over the quota: 429 `quota_exceeded` ("Limit Exceeded").
   * @default none
   * @example { free: { rate: 10, burst: 50, quota: { limit: 10_000, period: 'day' } }, pro: { rate: 100, burst: 500 } }
   */
  plans?: Readonly<Record<string, PlanOptions>>
  /**
   * The caller's API key, or nothing. One that throws, rejects or returns something that is not a string
   * counts as no key (and is reported).
   * @example (req) => req.headers['x-api-key']
   */
  apiKey?: RequestFunction<N, Awaitable<string | null | undefined>>
  /**
   * The plan of an API key, or nothing for a key it does not know (403). May be async (a database lookup):
   * answers are cached (`planCache`), bounded by `planTimeout`; one that throws, rejects or times out
   * answers 503 and is reported, never lets the request through unlimited.
   * @example async (apiKey) => (await db.keys.find(apiKey))?.plan
   */
  planOf?: (apiKey: string, req: N) => Awaitable<string | null | undefined>
  /**
   * The plan of requests without an API key, counted per client address. Unset: such requests are
   * answered 401, counted by `limits` (a per-IP flood limit) and by no plan.
   * @default none (401)
   * @example 'free'
   */
  anonymousPlan?: string
  /**
   * How `planOf`'s answers are kept: at most `maxKeys` keys for `ttl` (unknown keys too, so a flood of
   * made-up keys costs one lookup each per `ttl`), each under 1 KB (an API key over 128 characters is kept as
   * its digest), or `false` to ask every time and keep nothing. The only place plans are kept: `maxKeys` bounds
   * their memory whatever keys clients send.
   * @default { maxKeys: 10000, ttl: '1m' }
   * @example { maxKeys: 100_000, ttl: '5m' }
   */
  planCache?: false | { maxKeys?: number; ttl?: Duration }
  /**
   * The longest wait for `planOf`: past it the request is answered 503 and the lookup reported.
   * @default '1s'
   * @example '250ms'
   */
  planTimeout?: Duration
}
