import type { Store } from '../types.js'
import type { Answer } from './answer.js'
import type { RateLimitOptions } from './options/types.js'
import type { AnsweredRequest, Outcome, RequestRateLimit } from './outcome.js'
import type { Overrides } from './overrides.js'
import type { RequestInfo } from './request-info.js'
import type { Unban } from './unban.js'
import type { UsageReport } from './usage.js'
import type { WarningName } from './warnings.js'

/**
 * What a rate-limit middleware offers the app beside deciding requests: its plans' usage report, `unban` and
 * `overrides`. Express and Koa put them on the middleware (`withControls`); Fastify on the hook and the
 * instance.
 */
export interface LimiterControls {
  /**
   * What an API key has used of its usage plan, and a way to give it back (support staff): `usage(apiKey)`
   * and `resetUsage(apiKey)`. `undefined` without `plans`.
   */
  readonly usage: UsageReport | undefined
  /**
   * Lift a ban early, on every server sharing the store: `unban('203.0.113.7')`, `unban(userId, { policy })`
   * (see {@link Unban} for what the identifier is per key). Rejects with a `RateLimitConfigError` for an
   * identifier no policy with a `ban` keys on (and on a limiter without bans).
   */
  readonly unban: Unban
  /**
   * Change the policies' per-identifier overrides at runtime (`set`, `delete`, `list`), shared through the
   * store: see {@link Overrides}. A policy needs an `overrides` option (`{}` will do) to have any.
   */
  readonly overrides: Overrides
}

/** The framework-neutral rate limiter behind every adapter. */
export interface RateLimitHandler<N = any> extends LimiterControls {
  /**
   * Decide a request. Never rejects: whatever the store or the app's functions do, the request gets an
   * outcome (an {@link Answer}: `kind` `'pass'` or `'answer'`), and failures go to `onError`. Adapters pass
   * what an earlier limiter on the same request let the app read (`req.rateLimit`) as `previous`: when this
   * one refuses, what the earlier ones spent is given back; when it skips or cannot decide, the earlier
   * outcome still speaks for the request and is returned.
   *
   * The outcome itself when nothing on the way had to wait (a synchronous store such as the MemoryStore, and
   * `key`, `cost`, `skip`, `user` functions that return values), so an adapter can go on in the same tick with
   * no promise allocated; a promise of it otherwise. `await` works on either.
   */
  handle(request: RequestInfo<N>, previous?: RequestRateLimit): Outcome | Promise<Outcome>
  /** Give back everything `outcome` and the outcomes before it spent (once; safe to call again). */
  release(outcome: Outcome): void
  /** Whether `complete` has work to do (`skipFailedRequests`, `skipSuccessfulRequests`, or a policy that settles its cost with `settle`): adapters listen for the response's end only then. */
  readonly refunds: boolean
  /**
   * Call when the response has finished, with its status (0 when the connection closed first) and, for settled
   * costs, the framework's response object the `settle` functions get (Express `res`, Fastify `reply`, Koa
   * `ctx`): refunds per `skipFailedRequests` / `skipSuccessfulRequests`, and settles the request's cost. Safe to
   * call twice.
   */
  complete(outcome: Outcome, status: number, response?: unknown): void
  /**
   * The answer when the adapter could not write an outcome (the framework refused a header, say): a 500,
   * with the error reported to `onError` as `ERR_FLOODGATE_RESPONSE_FAILED`.
   */
  writeFailed(error: unknown, request: RequestInfo<N>): AnsweredRequest
  /** Whether a policy has a `ban` (adapters gather such limiters for an app-wide `unban`). */
  readonly bans: boolean
  /** Raise a misconfiguration warning the adapter detected (once per process, unless turned off). */
  warn(name: WarningName, message: string): void
  /** The store the policies live in. */
  readonly store: Store
  /** The options this handler was created with (adapters merge per-route options over them). */
  readonly options: RateLimitOptions<N>
}
