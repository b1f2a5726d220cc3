import type { Duration } from '../../duration.js'
import type { FailMode } from '../../failure-policy.js'
import type { MetricsSink } from '../../metrics/sink.js'
import type { Algorithm, Awaitable, Clock, Store } from '../../types.js'
import type { KeySpec } from '../key-spec.js'
import type { Outcome } from '../outcome.js'
import type { OverridesOption } from '../overrides.js'
import type { RequestInfo } from '../request-info.js'
import type { PlanAndTierOptions } from './plan-options.js'
import type {
  BanOptions,
  CostOption,
  PolicyOptions,
  RequestFunction,
  SettleFunction,
  WarningOptions,
} from './policy-types.js'
import type { ResponseOptions } from './response-options.js'

export type { PlanAndTierOptions } from './plan-options.js'
export type {
  BanOptions,
  CostOption,
  LimitedResponse,
  PlanOptions,
  PolicyOptions,
  RequestFunction,
  RouteTierOptions,
  SettleFunction,
  WarningOptions,
} from './policy-types.js'
export type { ResponseOptions } from './response-options.js'

/**
 * The options of `rateLimit()` in every adapter, and of `createRateLimitHandler`: the policies and what they
 * count per, plus the options of plans and tiers ({@link PlanAndTierOptions}) and of responses
 * ({@link ResponseOptions}).
 */
export interface RateLimitOptions<N = any> extends PlanAndTierOptions<N>, ResponseOptions<N> {
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
   * Short form: other limits for some callers of the single policy, or none (`false`), by identifier or
   * pattern (`*` stands for any run of characters). An exact identifier beats a pattern, a longer pattern beats a
   * shorter one. The identifier is the caller as the app knows it, before any encoding: the `user` function's
   * value for a `'user'` key, a key function's value, the normalised client address for `'ip'` (an IPv6 client as
   * its `/64`, `'2001:db8:0:1::/64'`). Each override counts in a key scope of its own: a caller's count is never
   * carried from one limit to another. Give it (even `{}`) to change overrides at runtime
   * (`middleware.overrides.set`). Not with `limits` (set it on a policy there). See docs/options.md#overrides.
   * @default none
   * @example { alice: slidingWindowCounter({ limit: 10_000, window: '1m' }), '*@acme.com': tokenBucket({ capacity: 500, refillRate: 50, interval: '1s' }), healthcheck: false }
   */
  overrides?: OverridesOption
  /**
   * Full form: several policies, checked together. Every one must allow; a refused request spends nothing
   * in any of them.
   * @example [{ name: 'ip', key: 'ip', algorithm: tokenBucket({...}) }, { name: 'user', key: 'user', algorithm: slidingWindowCounter({...}) }]
   */
  limits?: readonly PolicyOptions<N>[]
  /**
   * Short form: ban a key the single policy keeps refusing (see {@link BanOptions}); in the full form, set
   * `ban` on a policy in `limits`. Not with `limits`. Needs a store that keeps bans (the MemoryStore, the
   * RedisStore, the PostgresStore).
   * @default none (a refused key is only refused, 429)
   * @example { after: 10, within: '1m', for: '1h' }
   */
  ban?: BanOptions
  /**
   * Called once per ban, on the request whose refusal started it (answered 403), with the policy, how long the
   * ban lasts and the outcome (in dry run too, where the request goes on). Errors it throws go to `onError`.
   * @default none
   * @example (req, ban) => log.warn({ ip: req.ip, policy: ban.policy, ms: ban.forMs }, 'client banned')
   */
  onBanned?: (req: N, ban: BanInfo) => void
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
   * What a request spends in each policy that sets no `cost` of its own (see {@link CostOption}). Bound a
   * cost taken from the request so that no value makes it free or huge.
   * @default 1
   * @example (req) => Math.min(100, Math.max(1, Number.parseInt(req.headers['x-batch-size'], 10) || 1))
   */
  cost?: CostOption<N>
  /**
   * Settled costs: the request's actual cost, once its response is done (the tokens an LLM API generated),
   * given the framework's response (Express `res`, Fastify `reply`, Koa `ctx`) and the request (Koa: `ctx`
   * too); it may be async. The difference from what `cost` charged up front is charged (the key may go over its
   * limit: its next requests wait, with an honest `Retry-After`) or given back. It settles the policies that
   * take the top-level `cost` (a policy with a `cost` of its own settles only with a `settle` of its own). A
   * streamed response can settle itself instead: `req.rateLimit.settle(n)` (then this is not called). When it
   * throws, rejects or returns anything but a finite number >= 0, the estimate stands and the error goes to
   * `onError`. The store must be able to charge (`Store.charge`: every Floodgate store but the SyncedStore).
   * See docs/options.md, "Settled costs".
   * @default none (what is charged up front stands)
   * @example (res) => res.locals.usage.totalTokens
   */
  settle?: SettleFunction<N>
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
   * Client addresses and CIDR ranges (IPv4 and IPv6) that are refused outright: `403` with
   * `{ "error": "denied" }`, no `Retry-After`, before any store call (a denied client costs the store
   * nothing). An IPv4-mapped IPv6 client (`::ffff:203.0.113.7`) is matched as IPv4. A denial comes first:
   * `allowList` and `skip` do not undo it.
   * @default []
   * @example ['203.0.113.0/24', '2001:db8:bad::/48']
   */
  denyList?: readonly string[]
  /**
   * Requests for which this returns (or resolves to) `true` are refused outright, as `denyList` refuses:
   * `403` with `{ "error": "denied" }`, before any store call. When it throws or rejects, the request is not
   * denied (it is limited as usual) and the error goes to `onError`.
   * @example (req) => blockedAccounts.has(req.get('x-account-id'))
   */
  deny?: RequestFunction<N, Awaitable<boolean>>
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
   * Called once for every failure on a request: the store failed or timed out, one of your functions
   * threw, rejected or returned something invalid, the response could not be written, or the client
   * address is unknown. The error's `code` says which (see `docs/errors.md`). Without it, the first failure
   * of each code is a process warning and later ones are silent.
   * @default a process warning per code
   * @example (error, req) => log.error({ err: error }, 'rate limiter failed')
   */
  onError?: (error: unknown, req: N, info: RequestInfo<N>) => void
  /**
   * What a request gets when the store cannot answer (it throws, rejects, or passes `storeTimeout`; a
   * RedisStore or PostgresStore whose backend recently failed rejects at once): `'open'` lets it through
   * without rate-limit headers; `'closed'` answers 503 `{ "error": "rate_limiter_unavailable" }` with
   * `Retry-After: 1` and `Cache-Control: no-store`; `{ fallback }` decides it on the fallback store (headers
   * and refusals as usual; an in-memory insurance limiter counts per process). Each is reported to `onError`.
   * It never applies to your own functions (`key`, `user`, `cost`, `skip`): see each of them. The same option
   * as on `createLimiter`.
   * @default 'open'
   * @example { fallback: new MemoryStore() }
   */
  failMode?: FailMode
  /**
   * The longest a request waits for the store before `failMode` decides. A store that bounds its own calls
   * (RedisStore, PostgresStore, SyncedStore) is given this bound when the middleware is created (several
   * limiters over one store: the shortest); any other store is raced against a timer.
   * @default '500ms'
   * @example '100ms'
   */
  storeTimeout?: Duration
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

/** What `onBanned` is told about a ban that has just started. */
export interface BanInfo {
  /** The name of the policy whose ban it is. */
  readonly policy: string
  /** How long the ban lasts, in ms (the policy's `ban.for`). */
  readonly forMs: number
  /** The request's outcome: the 403 (or, in dry run, the shadow refusal that let it through). */
  readonly outcome: Outcome
}
