import type { Duration } from '../../duration.js'
import type { Algorithm, Awaitable } from '../../types.js'
import type { KeySpec } from '../key-spec.js'
import type { OverridesOption } from '../overrides.js'
import type { RequestInfo } from '../request-info.js'
import type { WarningName } from '../warnings.js'

/** A function of the framework's request (Express `req`, Fastify `request`, Koa `ctx`) and its {@link RequestInfo}. */
export type RequestFunction<N, T> = (req: N, info: RequestInfo<N>) => T

/**
 * What a request spends: a number, or a function of the request returning one (or a promise of one).
 * A cost is a finite number >= 0, counted to 1/1024 of a unit; 0 is a free request (counted as nothing, its
 * headers still sent). A function that throws, rejects or returns anything else is charged the default cost
 * (the top-level `cost` when it is a number, else 1) and reported to `onError`.
 */
export type CostOption<N> = number | RequestFunction<N, Awaitable<number>>

/**
 * What a request actually cost, known once its response is done (an LLM API's token count): a function of the
 * framework's response (Express `res`, Fastify `reply`, Koa `ctx`) and the request (Express `req`, Fastify
 * `request`, Koa `ctx`), returning the cost, or a promise of it. The difference from what was charged up front
 * is charged (possibly taking the key over its limit, so that its next requests wait) or given back. A function
 * that throws, rejects or returns anything but a finite number >= 0 is reported to `onError` and the estimate
 * stands.
 */
export type SettleFunction<N = any, R = any> = (res: R, req: N) => Awaitable<number>

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
  /**
   * Other limits for some of this policy's callers, or none (`false`), by identifier or pattern (`*` stands for
   * any run of characters): an exact identifier beats a pattern, a longer pattern beats a shorter one. The
   * identifier is the caller as the app knows it, before any encoding: the `user` function's value for a
   * `'user'` key (the address when there is no user), a key function's value, the normalised client address for
   * `'ip'`. Each override counts in a key scope of its own: a caller's count is never carried from one limit to
   * another. Give it (even `{}`) to change this policy's overrides at runtime (`middleware.overrides.set`),
   * shared through the store. Not on tiers, nor on a policy keyed by `'global'` or `'endpoint'` alone. See
   * docs/options.md#overrides.
   * @default none
   * @example { alice: slidingWindowCounter({ limit: 10_000, window: '1h' }), '*@acme.com': tokenBucket({ capacity: 500, refillRate: 50, interval: '1s' }), healthcheck: false }
   */
  overrides?: OverridesOption
  /**
   * This policy's actual cost once the response is done (see {@link SettleFunction}), over the top-level
   * `settle`. Without it, the policy settles with the top-level `settle` when it takes the top-level `cost`
   * (it sets no `cost` of its own), and not at all otherwise.
   * @default the top-level `settle` when the policy sets no `cost`; else none
   * @example (res) => res.locals.tokens
   */
  settle?: SettleFunction<N>
  /**
   * Ban a key of this policy that keeps being refused: see {@link BanOptions}.
   * @default none (a refused key is only refused, 429)
   * @example { after: 10, within: '1m', for: '1h' }
   */
  ban?: BanOptions
}

/**
 * A ban: after `after` refusals of one key within `within`, that key gets `403` `{ "error": "banned",
 * "message", "retryAfter" }` with `Retry-After` until `for` has passed, whatever its quota says, on every server
 * sharing the store (the ban is kept in the store, checked and counted in the same store call as the decision).
 * The `after`-th refusal starts the ban and is itself answered 403 (`onBanned` is called on it); a banned request
 * spends nothing and counts nothing. Refusals are counted in a window that opens at a key's first refusal and
 * lasts `within`. Lift a ban early with `unban(key)` on the middleware.
 */
export interface BanOptions {
  /**
   * How many refusals of one key within `within` start a ban: a whole number >= 1 (1: the first refusal bans).
   * @example 10
   */
  after: number
  /**
   * The window the refusals are counted in: ms or a string (`'1m'`).
   * @example '1m'
   */
  within: Duration
  /**
   * How long a ban lasts: ms or a string (`'1h'`).
   * @example '1h'
   */
  for: Duration
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
