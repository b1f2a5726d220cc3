import { JITTERS, type Jitter } from './backoff.js'
import { isRetryBudget, type RetryBudget, retryBudget } from './budget.js'
import type { Duration } from './duration.js'
import type { RateLimitInfo } from './headers/types.js'
import {
  boolean,
  custom,
  duration,
  fn,
  methodList,
  oneOf,
  optionalFn,
  type Parsed,
  parseFields,
  statusList,
  wholeNumber,
} from './schema.js'
import { type Sleep, sleep } from './sleep.js'

/** What `onRetry` is told before each wait. */
export interface RetryEvent {
  /** The number of the attempt that was refused: 1 for the first request. */
  readonly attempt: number
  /** How long the client waits before the next attempt, in ms. */
  readonly delayMs: number
  /** What the server asked for (`Retry-After`, else the reset of a policy at 0), in ms; `undefined` when it did not say. */
  readonly serverWaitMs: number | undefined
  /** The refused response's status. */
  readonly status: number
  readonly method: string
  readonly url: string
  /** Everything the refused response said about its limits. */
  readonly info: RateLimitInfo
}

/** The methods RFC 9110 defines as idempotent: the ones retried by default. */
export const IDEMPOTENT_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']

/** The defaults, written once: every option is read against this. */
export const clientSchema = {
  maxAttempts: wholeNumber(3, 1),
  retryOn: statusList([429, 503]),
  retryMethods: methodList(IDEMPOTENT_METHODS),
  baseDelay: duration(2_000),
  maxDelay: duration(30_000),
  jitter: oneOf<Jitter>('full', JITTERS),
  maxRetryAfter: duration(60_000),
  budget: custom<RetryBudget | false>(
    () => retryBudget(),
    'a retry budget (from retryBudget()) or false',
    (v) => v === false || isRetryBudget(v),
  ),
  pace: boolean(false),
  paceRemaining: wholeNumber(0, 0),
  maxPaceDelay: duration(60_000),
  onRetry: optionalFn<(event: RetryEvent) => void>(),
  random: fn<() => number>(() => Math.random, 'a function returning a number in [0, 1)'),
  now: fn<() => number>(() => Date.now, 'a function returning the time in ms'),
  sleep: fn<Sleep>(() => sleep, 'a function (ms, signal) returning a promise'),
}

/** The options, every one read: what the integrations work from. */
export type ClientSettings = Parsed<typeof clientSchema>

/** The options of {@link createFetch} and of the undici interceptor. */
export interface ClientOptions {
  /**
   * How many times a request is sent at most, the first one included. After the last, its response is
   * returned as it is (a 429, say).
   * @default 3
   * @example 5
   */
  maxAttempts?: number
  /**
   * The statuses that are retried.
   * @default [429, 503]
   * @example [429, 502, 503, 504]
   */
  retryOn?: readonly number[]
  /**
   * The methods that are retried: the idempotent ones. A request of another method is retried too when it
   * carries an `Idempotency-Key` header.
   * @default ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']
   * @example ['GET', 'HEAD']
   */
  retryMethods?: readonly string[]
  /**
   * The base of the exponential backoff: after attempt `n` is refused, the backoff is drawn below
   * `min(maxDelay, baseDelay * 2^n)` (up to 4 s, 8 s, 16 s, 30 s with the defaults). Ms or a string.
   * @default '2s'
   * @example '500ms'
   */
  baseDelay?: Duration
  /**
   * The cap of the backoff's ceiling.
   * @default '30s'
   * @example '1m'
   */
  maxDelay?: Duration
  /**
   * How the backoff is randomised: `'full'` (`random(0, ceiling)`), `'equal'` (`ceiling / 2 +
   * random(0, ceiling / 2)`), `'decorrelated'` (`min(maxDelay, random(baseDelay, previous * 3))`), or
   * `'none'`. When the server sent `Retry-After`, the wait is `Retry-After` plus the backoff, so that clients
   * refused together do not all come back at the reset; with `'none'`, exactly `Retry-After`.
   * @default 'full'
   * @example 'decorrelated'
   */
  jitter?: Jitter
  /**
   * The longest server wait (`Retry-After`, or the reset of a policy at 0) the client waits for. When the
   * server asks for longer, the response is returned at once: nothing waits for hours inside a `fetch`.
   * @default '1m'
   * @example '5m'
   */
  maxRetryAfter?: Duration
  /**
   * The retry budget that retries spend from ({@link retryBudget}); `false` for none. Pass one budget to
   * several clients to share it.
   * @default retryBudget(): 500 tokens, a retry costs 5, a response that is not retried (below 500) gives back 1
   * @example retryBudget({ capacity: 100 })
   */
  budget?: RetryBudget | false
  /**
   * Slow down before the wall: when a response says a policy has `paceRemaining` or fewer left, hold back
   * the next requests to that origin (until the reset at 0; spread over the reset when a few are left), and
   * after a `Retry-After`, until it has passed. Paused origins are kept in memory: the 1,000 most recent, each
   * of at most 300 characters (a longer one, which no DNS name makes, is never paced).
   * @default false
   * @example true
   */
  pace?: boolean
  /**
   * With `pace`: pace when a policy has at most this many left.
   * @default 0
   * @example 5
   */
  paceRemaining?: number
  /**
   * With `pace`: the longest a request is held back.
   * @default '1m'
   * @example '10s'
   */
  maxPaceDelay?: Duration
  /**
   * Called before each wait for a retry, for logging. What it throws is ignored.
   * @default undefined
   * @example ({ attempt, status, delayMs, url }) => console.warn(`${url}: ${status}, retry ${attempt} in ${delayMs} ms`)
   */
  onRetry?: (event: RetryEvent) => void
  /**
   * The source of randomness for the jitter: a number in [0, 1).
   * @default Math.random
   * @example seededRandom(42)
   */
  random?: () => number
  /**
   * The clock, in ms: `Retry-After` dates and epoch resets are read against it.
   * @default Date.now
   * @example () => performance.timeOrigin + performance.now()
   */
  now?: () => number
  /**
   * How the client waits: resolves after `ms`, rejects with the signal's reason when it aborts.
   * @default a timer (setTimeout), cleared on abort
   * @example (ms, signal) => scheduler.wait(ms, { signal })
   */
  sleep?: Sleep
}

/** Read and check the options, or throw a `ClientConfigError` naming the first bad one. */
export const parseClientOptions = (options: ClientOptions | undefined, where?: string): ClientSettings =>
  parseFields(clientSchema, options, where)
