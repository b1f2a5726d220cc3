import * as z from 'zod'
import type { Duration } from '../duration.js'
import { RateLimitConfigError } from '../errors.js'
import type { Algorithm } from '../types.js'
import { algorithmId } from './id.js'
import { type Meter, meterCharge, meterDecision, meterExpiresAt, meterRefund } from './meter.js'
import { bucketRate, duration, parseOptions, positiveInt, rateDuration } from './options.js'

/** Options of {@link leakyBucket}. */
export interface LeakyBucketOptions {
  /**
   * How many requests the bucket (the queue) holds; one more overflows and is refused.
   * @example 10
   */
  capacity: number
  /**
   * Requests that leak out (are processed) every `interval`.
   * @example 1
   */
  leakRate: number
  /**
   * The period `leakRate` refers to.
   * @default '1s'
   * @example '100ms'
   */
  interval?: Duration
  /**
   * `'police'` refuses a request that would overflow and lets the others through at once; `'shape'` admits
   * it with a `delayMs` that makes the output a flat line: a burst of 10 leaking 1 per 100 ms goes out
   * 100 ms apart.
   * @default 'police'
   */
  mode?: 'police' | 'shape'
  /**
   * Shaping only: the longest a request may be asked to wait. One that would wait longer is refused (429)
   * with the honest `Retry-After` (when its wait would be `maxDelay`), and spends nothing. Without it the
   * longest wait is what `capacity` allows: `(capacity - 1) x interval / leakRate`. Decided by the limiter
   * and the HTTP handler from the store's `delayMs`, so every store runs it with no state of its own.
   * @default none (the wait is bounded by `capacity` alone)
   * @example '2s'
   */
  maxDelay?: Duration
}

const schema = z.strictObject({
  capacity: positiveInt(),
  leakRate: bucketRate(),
  interval: rateDuration().default(1000),
  mode: z.enum(['police', 'shape'], { error: "'police' or 'shape'" }).default('police'),
  maxDelay: duration().optional(),
})

/**
 * Leaky bucket: requests fill a bucket of `capacity` that leaks `leakRate` per `interval`. In `'police'` mode
 * it refuses what would overflow; in `'shape'` mode it also tells each admitted request how long to wait
 * (`delayMs`) so that requests leave at the leak rate.
 *
 * State: `[level x interval, lastUpdate]`.
 *
 * @example leakyBucket({ capacity: 10, leakRate: 1, interval: '100ms', mode: 'shape' })
 * @example leakyBucket({ capacity: 100, leakRate: 10, interval: '1s', mode: 'shape', maxDelay: '2s' })
 */
export function leakyBucket(options: LeakyBucketOptions): Algorithm & { readonly mode: 'police' | 'shape' } {
  const { capacity, leakRate, interval, mode, maxDelay } = parseOptions(schema, options, 'leakyBucket')
  if (maxDelay !== undefined && mode !== 'shape') {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      'leakyBucket.maxDelay',
      options.maxDelay,
      "used with mode: 'shape' only (a policing bucket never delays a request)",
    )
  }
  const meter: Meter = { capacity, rate: leakRate, intervalMs: interval, shape: mode === 'shape' }
  // maxDelayMs joins the parameters (and so the id) only when set: buckets without it keep their ids.
  const params: Record<string, number> = {
    capacity,
    rate: leakRate,
    intervalMs: interval,
    shape: meter.shape ? 1 : 0,
  }
  if (maxDelay !== undefined) params.maxDelayMs = maxDelay
  return {
    kind: 'leaky-bucket',
    mode,
    limit: capacity,
    windowMs: Math.ceil((capacity * interval) / leakRate),
    stateSize: 2,
    params,
    id: algorithmId('leaky-bucket', params),
    ...(maxDelay === undefined ? {} : { maxDelayMs: maxDelay }),
    consume: (s, at, now, cost) => meterDecision(s, at, now, cost, true, meter),
    peek: (s, at, now, cost) => meterDecision(s, at, now, cost, false, meter),
    refund: (s, at, now, cost) => meterRefund(s, at, now, cost, meter),
    charge: (s, at, now, cost) => meterCharge(s, at, now, cost, meter),
    expiresAt: (s, at) => meterExpiresAt(s, at, meter),
  }
}
