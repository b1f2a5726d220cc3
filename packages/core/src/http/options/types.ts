import type { Duration } from '../../duration.js'
import type { MetricsSink } from '../../metrics/sink.js'
import type { Algorithm, Awaitable, Clock, Decision, Store } from '../../types.js'
import type { HeadersOption } from '../headers.js'
import type { KeySpec } from '../key-spec.js'
import type { Outcome } from '../outcome.js'
import type { RequestInfo } from '../request-info.js'
import type { ResponseFormat } from '../responses.js'
import type { WarningName } from '../warnings.js'

/** A function of the framework's request (Express `req`, Fastify `request`, Koa `ctx`) and its {@link RequestInfo}. */
export type RequestFunction<N, T> = (req: N, info: RequestInfo<N>) => T

/**
 * What a request spends: a number, or a function of the request returning one (or a promise of one).
 * A cost is a finite number >= 0, counted to 0.001 of a unit; 0 is a free request (counted as nothing, its
 * headers still sent). A function that throws, rejects or returns anything else is charged the default cost
 * (the top-level `cost` when it is a number, else 1) and reported to `onError`.
 */
export type CostOption<N> = number | RequestFunction<N, Awaitable<number>>

/** One policy of a layered limit. */
export interface PolicyOptions<N = any> {
  /**
   * The policy's name: in headers (`draft-8`), in the 429 body's `policy`, in keys. Letters, digits and
   * `_ . : ~ / -`, at most 64.
   * @default the key's name when it is a string (`'ip'`, `'user'`, ...), else `'default'`
   * @example 'export'
   */
  name?: string
  /**
   * What the policy counts per: `'ip'`, `'user'`, `'endpoint'`, `'global'`, a function of the request, or
   * an array of these.
   * @default 'ip'
   * @example ['user', 'endpoint']
   */
  key?: KeySpec<N>
  /**
   * The algorithm and its quota.
   * @example tokenBucket({ capacity: 50, refillRate: 10, interval: '1s' })
   */
  algorithm: Algorithm
  /**
   * What one request spends in this policy (see {@link CostOption}).
   * @default the top-level `cost`
   * @example (req) => (req.method === 'GET' ? 1 : 5)
   */
  cost?: CostOption<N>
}

/** What a custom refusal handler returns; anything left out keeps its default. */
export interface LimitedResponse {
  /** A status from 200 to 599. @default 429 (`statusCode`) */
  status?: number
  /** A string is sent as is; anything else as JSON. */
  body?: unknown
  /** @default 'application/json; charset=utf-8' */
  contentType?: string
  /** Added to (or replacing) the rate-limit headers. Names are tokens; values hold no CR, LF or NUL and no character above U+00FF. */
  headers?: Record<string, string>
}

/** A usage plan: a token bucket per API key (`rate` per second, `burst` at once) and an optional quota. */
export interface PlanOptions {
  /**
   * Requests per second in the long run: the token bucket's refill rate.
   * @example 10
   */
  rate: number
  /**
   * How many requests a rested key may send at once: the bucket's capacity.
   * @default rate (rounded up)
   * @example 50
   */
  burst?: number
  /**
   * A hard limit per calendar period, on top of the rate, counted per API key (see `calendarQuota`).
   * @default none
   * @example { limit: 10_000, period: 'day' }
   */
  quota?: { limit: number; period: 'day' | 'week' | 'month'; utcOffset?: string }
}

/** A tighter innermost tier for one route: a policy's algorithm, or the short form. */
export type RouteTierOptions = { algorithm: Algorithm } | { limit: number; window: Duration }

/** Each misconfiguration warning by name, `false` to turn it off (see `docs/errors.md`). */
export type WarningOptions = Partial<Record<WarningName, boolean>>

/** The options of `rateLimit()` in every adapter, and of `createRateLimitHandler`. */
export interface RateLimitOptions<N = any> {
  /**
   * Short form: requests per `window`, per `key`, with a sliding window counter. Not with `limits`.
   * @default 100
   * @example 100
   */
  limit?: number
  /**
   * Short form: the window of `limit`, ms or a string (`'10s'`, `'1m'`, `'1h'`). Not with `limits`.
   * @default '1m'
   * @example '15m'
   */
  window?: Duration
  /**
   * Short form: the algorithm of the single policy, instead of `limit` and `window`. Not with `limits`.
   * @default slidingWindowCounter({ limit, window })
   * @example gcra({ rate: 10, period: '1s', burst: 20 })
   */
  algorithm?: Algorithm
  /**
   * Short form: what the single policy counts per. Not with `limits`.
   * @default 'ip'
   * @example 'user'
   */
  key?: KeySpec<N>
  /**
   * Short form: the single policy's name. Not with `limits`.
   * @default the key's name when it is a string, else `'default'`
   * @example 'api'
   */
  name?: string
  /**
   * Full form: several policies, checked together. Every one must allow; a refused request spends nothing
   * in any of them.
   * @example [{ name: 'ip', key: 'ip', algorithm: tokenBucket({...}) }, { name: 'user', key: 'user', algorithm: slidingWindowCounter({...}) }]
   */
  limits?: readonly PolicyOptions<N>[]
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
   * answered 401, and counted against no one.
   * @default none (401)
   * @example 'free'
   */
  anonymousPlan?: string
  /**
   * How `planOf`'s answers are kept: at most `maxKeys` keys for `ttl` (unknown keys too, so a flood of
   * made-up keys costs one lookup each per `ttl`), or `false` to ask every time.
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
  /**
   * Where state lives; share one store between instances to share counters.
   * @default new MemoryStore()
   * @example new RedisStore({ client: new Redis() })
   */
  store?: Store
  /**
   * Put before every key (`prefix:policy|{caller}`), so that two limiters sharing a store never share
   * state. No `|`, `{` or `}`.
   * @default ''
   * @example 'api'
   */
  prefix?: string
  /**
   * The time source, in ms, passed to the store. Without it the store keeps its own time (the Redis
   * server's, for RedisStore). Tests pass a virtual clock.
   * @default the store's own time
   * @example clock.now
   */
  clock?: Clock
  /**
   * How `'user'` keys find the user: a function of the request, which may be async. A request without one
   * (before login) is counted by its IP in that policy, never in one shared bucket; so is a request for
   * which it throws, rejects or returns something that is not an id (reported to `onError`).
   * @example (req) => req.user?.id
   */
  user?: RequestFunction<N, Awaitable<string | number | bigint | null | undefined>>
  /**
   * Which rate-limit headers every response carries: `'draft-6'`, `'draft-7'`, `'draft-8'`, `'legacy'`,
   * one draft plus `'legacy'` in an array, or `false`. 429s always carry `Retry-After`.
   * @default 'draft-6'
   * @example ['draft-8', 'legacy']
   */
  headers?: HeadersOption
  /**
   * What a request spends in each policy that sets no `cost` of its own (see {@link CostOption}). Bound a
   * cost taken from the request so that no value makes it free or huge.
   * @default 1
   * @example (req) => Math.min(100, Math.max(1, Number.parseInt(req.headers['x-batch-size'], 10) || 1))
   */
  cost?: CostOption<N>
  /**
   * Requests for which this returns (or resolves to) `true` are not counted and get no headers. When it
   * throws or rejects, the request is counted (never skipped), and the error goes to `onError`.
   * @example (req) => req.path === '/health'
   */
  skip?: RequestFunction<N, Awaitable<boolean>>
  /**
   * Client addresses and CIDR ranges (IPv4 and IPv6) that are never limited.
   * @default []
   * @example ['127.0.0.1', '10.0.0.0/8', '2001:db8::/32']
   */
  allowList?: readonly string[]
  /**
   * How many leading bits of an IPv6 address make one client for `'ip'` keys: a client owns a whole /64
   * and could rotate through it. `false` (or 128) keys by the full address.
   * @default 64
   * @example 56
   */
  ipv6Subnet?: number | false
  /**
   * Shadow mode: count, send headers and call `onLimited`, but never refuse.
   * @default false
   * @example true
   */
  dryRun?: boolean
  /**
   * Called on every refused request (in dry run too), before the response is sent. Errors it throws go to
   * `onError`.
   * @example (req, outcome) => log.warn({ policy: outcome.decision?.policy }, 'rate limited')
   */
  onLimited?: (req: N, outcome: Outcome) => void
  /**
   * Called once for every failure on a request: the store failed or timed out, one of your functions
   * threw, rejected or returned something invalid, the response could not be written, or the client
   * address is unknown. The error's `code` says which (see `docs/errors.md`). Without it, the first failure
   * of each code is a process warning and later ones are silent.
   * @default a process warning per code
   * @example (error, req) => log.error({ err: error }, 'rate limiter failed')
   */
  onError?: (error: unknown, req: N, info: RequestInfo<N>) => void
  /**
   * What happens when the store throws, rejects or times out: `'open'` lets the request through without
   * rate-limit headers; `'closed'` answers 503. A RedisStore applies its own `failMode` first; this is the
   * backstop. It never applies to your own functions (`key`, `user`, `cost`, `skip`): see each of them.
   * @default 'open'
   * @example 'closed'
   */
  failMode?: 'open' | 'closed'
  /**
   * The longest wait for an asynchronous store before `failMode` applies; `false` waits forever.
   * @default '5s'
   * @example '500ms'
   */
  storeTimeout?: Duration | false
  /**
   * Give back what a request spent when its response has status >= 400 (or the connection closed first).
   * @default false
   * @example true
   */
  skipFailedRequests?: boolean
  /**
   * Give back what a request spent when its response has status < 400 (count only failures: login attempts).
   * @default false
   * @example true
   */
  skipSuccessfulRequests?: boolean
  /**
   * The 429 body's message, or a function of the request and the refusing decision.
   * @default 'Too many requests, retry in 30 seconds.' (with the actual wait)
   * @example 'Slow down.'
   */
  message?: string | ((req: N, info: RequestInfo<N>, decision: Decision) => string)
  /**
   * The status of a refusal.
   * @default 429
   * @example 503
   */
  statusCode?: number
  /**
   * The 429 body: `'json'` is `{ error, message, retryAfter, policy }`; `'problem+json'` is RFC 9457
   * problem details (`application/problem+json`).
   * @default 'json'
   * @example 'problem+json'
   */
  format?: ResponseFormat
  /**
   * Your own refusal: return the status, body, content type or headers to change; the rest stays default.
   * When it throws or rejects the default refusal is sent; when what it returns cannot be sent (a status
   * outside 200-599, a header value with CR or LF), the answer is 500. Both go to `onError`.
   * @example (req, outcome) => ({ body: { error: 'slow down', wait: outcome.decision?.retryAfterMs } })
   */
  handler?: (
    req: N,
    outcome: Outcome,
    info: RequestInfo<N>,
  ) => LimitedResponse | undefined | Promise<LimitedResponse | undefined>
  /**
   * How a shaped request waits its `delayMs` before it proceeds. Tests inject one that records the delay.
   * @default (ms) => new Promise((resolve) => setTimeout(resolve, ms))
   * @example async (ms) => void delays.push(ms)
   */
  sleep?: (ms: number) => Promise<void>
  /**
   * Misconfiguration warnings (a process warning once per process, each with a stable code and a link to
   * `docs/errors.md`): `false` turns them all off, or turn off one by name.
   * @default true
   * @example { forwardedHeader: false }
   */
  warnings?: boolean | WarningOptions
  /**
   * Where to report what the limiter decides (`floodgate_requests_total`, `floodgate_decisions_total`,
   * `floodgate_near_limit_total`, `floodgate_quota_refusals_total`; see `docs/metrics.md`): a sink from
   * `@floodgate/metrics`, or any {@link MetricsSink}. Labels are policy and plan names and outcomes, never a
   * client's key. Without it nothing is counted, and nothing is spent per request.
   * @default none
   * @example prometheus({ register })
   */
  metrics?: MetricsSink
}
