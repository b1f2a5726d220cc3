import type { Duration } from '../../duration.js'
import type { HeadersOption } from '../../http/headers.js'
import type { KeyFunction } from '../../http/key-spec.js'
import type { RequestInfo } from '../../http/request-info.js'
import type { Clock, Store } from '../../types.js'
import type { Timers } from '../timers.js'

/** What a slow-down key counts per: as `rateLimit`'s `key`, without `'user'` (a function gives any caller). */
export type SlowDownKeyPart<N = any> = 'ip' | 'endpoint' | 'global' | KeyFunction<N>
/** One part, or several combined (`['ip', 'endpoint']`: per client per route). */
export type SlowDownKey<N = any> = SlowDownKeyPart<N> | readonly SlowDownKeyPart<N>[]

/**
 * The delay of a request past `after`, in ms, from its number in the window (`after + 1` for the first one
 * delayed); it may be async. Capped by `maxDelay`.
 */
export type DelayFunction<N = any> = (count: number, req: N, info: RequestInfo<N>) => number | Promise<number>

/** The options of `slowDown()` in every adapter, and of `createSlowDown`. */
export interface SlowDownOptions<N = any> {
  /**
   * How many requests of a key go at once in each window; the ones after it are delayed. 0: every request
   * is delayed, the first by `delay`.
   * @default 1
   * @example 5
   */
  after?: number
  /**
   * How much longer each request past `after` waits than the one before: request `n` of the window waits
   * `(n - after) x delay`. Or a function of `n` (and the request) returning the whole delay in ms, maybe
   * async; one that throws, rejects or returns something that is not a number >= 0 delays nothing, and the
   * error goes to `onError`.
   * @default 1000 (1 s)
   * @example '500ms'
   * @example (count) => 2 ** (count - 5) * 100
   */
  delay?: Duration | DelayFunction<N>
  /**
   * The longest any request is delayed. `Infinity` for no bound (as express-slow-down's default): a delayed
   * request holds its connection, so an unbounded delay lets a flood pile up open sockets. Timers cannot wait
   * longer than 2^31 - 1 ms (24.8 days), which also bounds `Infinity`.
   * @default '30s'
   * @example '10s'
   */
  maxDelay?: Duration
  /**
   * How long a window is: the count of a key starts again at each window, aligned to the clock (a window of
   * `'1m'` turns at every whole minute).
   * @default '1m'
   * @example '15m'
   */
  window?: Duration
  /**
   * What is counted per: `'ip'` (the client address as the framework decides it, IPv6 by its /64),
   * `'endpoint'` (method and route pattern), `'global'`, a function of the request (maybe async; when it
   * gives nothing, the request is counted by its IP), or an array of these.
   * @default 'ip'
   * @example ['ip', 'endpoint']
   * @example (req) => req.body?.email
   */
  key?: SlowDownKey<N>
  /**
   * Where the counts live: any store (`MemoryStore`, `RedisStore`, `PostgresStore`, ...). Servers that share
   * a store share the counts.
   * @default new MemoryStore()
   * @example new RedisStore({ client: new Redis() })
   */
  store?: Store
  /**
   * Put before every store key, so that two slow-downs on one store keep their own counts. It must not
   * contain `|`, `{` or `}`.
   * @default '' (none: keys start with `slow-down|`)
   * @example 'login'
   */
  prefix?: string
  /**
   * The prefix an IPv6 client is counted by, as on `rateLimit` (`false`: the whole address).
   * @default 64
   * @example 56
   */
  ipv6Subnet?: number | false
  /**
   * The RateLimit headers of the slow-down's window (`limit` is `after`, `remaining` the requests left before
   * delays start, the policy named `slow-down`), in the formats of `rateLimit`'s `headers`. Off by default:
   * beside a `rateLimit`, they would replace its own headers.
   * @default false
   * @example 'draft-7'
   */
  headers?: HeadersOption
  /**
   * Whether a delayed request's response says so: `Floodgate-Delay: <ms>`, the wait in whole ms.
   * @default true
   * @example false
   */
  delayHeader?: boolean
  /**
   * The longest a request waits for the store to count it; past it, the request goes at once and the
   * timeout goes to `onError`. A store that bounds its own calls (RedisStore, PostgresStore) is given it.
   * @default '500ms'
   * @example '100ms'
   */
  storeTimeout?: Duration
  /**
   * Called with what went wrong on a request (the store failed, a function failed, no client address); the
   * request goes on at once. Without it, the first error of each code is a process warning.
   * @default none
   * @example (error) => log.warn(error)
   */
  onError?: (error: unknown, req: N, info: RequestInfo<N>) => void
  /**
   * The time source of the windows, in ms since the epoch. Without it the store keeps time (the Redis
   * server's clock for a RedisStore, so servers agree); tests pass a virtual clock.
   * @default the store's clock
   * @example () => virtualNow
   */
  clock?: Clock
  /**
   * The timers the delays wait on; tests pass virtual ones and never sleep.
   * @default setTimeout / clearTimeout, unref'd
   * @example virtualTimers(clock)
   */
  timers?: Timers
}
