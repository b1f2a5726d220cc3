import type { Duration } from '../../duration.js'
import type { ResponseFormat } from '../../http/bodies.js'
import type { RequestInfo } from '../../http/request-info.js'
import type { MetricsSink } from '../../metrics/sink.js'
import type { Timers } from '../timers.js'

/** One queue of `priorityQueue`. */
export interface QueueOptions {
  /**
   * How many requests may wait in this queue; one more is answered 429 at once. 0: never wait (served only
   * when a place is free).
   * @default none: required
   * @example 500
   */
  capacity: number
  /**
   * How long a request may wait in this queue before it is answered 503, over the top-level `maxWait`.
   * @default the top-level `maxWait`
   * @example '30s'
   */
  maxWait?: Duration
}

/** The options of `priorityQueue()` in every adapter, and of `createPriorityQueue`. */
export interface PriorityQueueOptions<N = any> {
  /**
   * How many requests are served at once; the rest wait in their queue.
   * @default none: required
   * @example 64
   */
  concurrency: number
  /**
   * The queues by name, in drain order: the first is served first, the next only when the ones before it
   * are empty.
   * @default none: required
   * @example { premium: { capacity: 500 }, standard: { capacity: 100 } }
   */
  queues: Record<string, QueueOptions>
  /**
   * Which queue a request waits in: the name of one of `queues`. Required with more than one queue. One that
   * throws, rejects or names no queue puts the request in the last queue (the lowest priority), and the
   * error goes to `onError`.
   * @default every request in the one queue
   * @example (req) => (req.user?.plan === 'premium' ? 'premium' : 'standard')
   */
  priority?: (req: N, info: RequestInfo<N>) => string | Promise<string>
  /**
   * How long a request may wait for its turn before it is answered 503 with `Retry-After`.
   * @default '10s'
   * @example '2s'
   */
  maxWait?: Duration
  /**
   * The guard against starvation: a request that has waited this long is served before any that has waited
   * less, whatever its queue. `false`: strict priority (a busy first queue can hold the others back until
   * their `maxWait`).
   * @default false
   * @example '2s'
   */
  promoteAfter?: Duration | false
  /**
   * The body of a 429 or 503: `{ error, message, retryAfter, priority }`, or RFC 9457 problem details.
   * @default 'json'
   * @example 'problem+json'
   */
  format?: ResponseFormat
  /**
   * Called with what went wrong on a request (a `priority` function that failed); without it, the first
   * error of each code is a process warning.
   * @default none
   * @example (error) => log.warn(error)
   */
  onError?: (error: unknown, req: N, info: RequestInfo<N>) => void
  /**
   * The time source, in ms; tests pass a virtual clock.
   * @default performance.now
   * @example () => virtualNow
   */
  clock?: () => number
  /**
   * The timers behind `maxWait`; tests pass virtual ones.
   * @default setTimeout / clearTimeout, unref'd
   * @example virtualTimers(clock)
   */
  timers?: Timers
  /**
   * Where to report each queue's depth, wait times and refusals (`floodgate_queue_depth`,
   * `floodgate_queue_wait_seconds`, `floodgate_queue_refusals_total`; see `docs/metrics.md`).
   * @default none
   * @example prometheus({ register })
   */
  metrics?: MetricsSink
}
