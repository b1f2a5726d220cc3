import type { Duration } from '../../duration.js'
import type { ResponseFormat } from '../../http/bodies.js'
import type { RequestInfo } from '../../http/request-info.js'
import type { MetricsSink } from '../../metrics/sink.js'
import type { OverloadSignal } from './event-loop-delay.js'

/** The options of `loadShedder()` in every adapter, and of `createLoadShedder`. Give `maxInFlight`, `maxEventLoopDelay`, or both. */
export interface LoadShedderOptions<N = any> {
  /**
   * Which class a request is in: one of `classes`. One that throws, rejects or names no class puts the
   * request in the last class (the first shed), and the error goes to `onError`.
   * @default every request in the last class
   * @example (req) => (req.path.startsWith('/checkout') ? 'critical' : req.method === 'GET' ? 'normal' : 'sheddable')
   */
  priority?: (req: N, info: RequestInfo<N>) => string | Promise<string>
  /**
   * The classes, most important first: the last is shed first, the first last.
   * @default ['critical', 'normal', 'sheddable']
   * @example ['paid', 'free']
   */
  classes?: readonly string[]
  /**
   * How many requests may be in flight (let in, response not yet finished) at once. With `reserve`, the
   * classes below a reserve are shed before this.
   * @default none
   * @example 256
   */
  maxInFlight?: number
  /**
   * The event-loop delay (measured with `perf_hooks.monitorEventLoopDelay`, smoothed) above which the server
   * counts as overloaded: while it stays above, one more class is shed per `step`, from the last.
   * @default none
   * @example '100ms'
   */
  maxEventLoopDelay?: Duration
  /**
   * Shares of `maxInFlight` kept for a class and the ones above it: `{ critical: 0.2 }` sheds every other
   * class once 80% of `maxInFlight` is in flight, and critical requests only at 100%.
   * @default {} (every class up to maxInFlight)
   * @example { critical: 0.2, normal: 0.1 }
   */
  reserve?: Readonly<Record<string, number>>
  /**
   * How often the event-loop signal may shed (or let back) one more class.
   * @default '1s'
   * @example '500ms'
   */
  step?: Duration
  /**
   * The body of a 503: `{ error: 'shed', message, retryAfter, priority }`, or RFC 9457 problem details with
   * the RateLimit draft's `temporary-reduced-capacity` type.
   * @default 'json'
   * @example 'problem+json'
   */
  format?: ResponseFormat
  /**
   * Called with what went wrong on a request (a `priority` function that failed).
   * @default none (the first error of each code is a process warning)
   * @example (error) => log.warn(error)
   */
  onError?: (error: unknown, req: N, info: RequestInfo<N>) => void
  /**
   * The overload signal: the event loop's smoothed delay. Tests pass their own.
   * @default eventLoopDelaySignal() when `maxEventLoopDelay` is set
   * @example { delayMs: () => measured, close() {} }
   */
  overload?: OverloadSignal
  /**
   * The time source, in ms; tests pass a virtual clock.
   * @default performance.now
   * @example () => virtualNow
   */
  clock?: () => number
  /**
   * Where to count the requests shed, by class and cause (`floodgate_shed_total`; see `docs/metrics.md`).
   * @default none
   * @example prometheus({ register })
   */
  metrics?: MetricsSink
}
