import * as z from 'zod'
import type { Duration } from '../duration.js'
import type { Algorithm } from '../types.js'
import { algorithmId } from './id.js'
import { type Meter, meterCharge, meterDecision, meterExpiresAt, meterRefund } from './meter.js'
import { bucketRate, parseOptions, positiveInt, rateDuration } from './options.js'

/** Options of {@link tokenBucket}. */
export interface TokenBucketOptions {
  /**
   * The most tokens the bucket holds: the largest burst a rested client can send at once.
   * @example 10
   */
  capacity: number
  /**
   * Tokens added every `interval`, continuously (a refill of 1 per 100 ms adds 0.5 in 50 ms).
   * @example 1
   */
  refillRate: number
  /**
   * The period `refillRate` refers to.
   * @default '1s'
   * @example '100ms'
   */
  interval?: Duration
}

const schema = z.strictObject({
  capacity: positiveInt(),
  refillRate: bucketRate(),
  interval: rateDuration().default(1000),
})

/**
 * Token bucket: tokens refill at `refillRate` per `interval` up to `capacity`; each request takes `cost`
 * tokens or is refused. A quiet client earns a burst of up to `capacity`.
 *
 * State: `[tokensUsed x interval, lastUpdate]` (tokens used rather than left, so all zeros is a full bucket).
 *
 * @example tokenBucket({ capacity: 10, refillRate: 1, interval: '100ms' })
 */
export function tokenBucket(options: TokenBucketOptions): Algorithm {
  const { capacity, refillRate, interval } = parseOptions(schema, options, 'tokenBucket')
  const meter: Meter = { capacity, rate: refillRate, intervalMs: interval, shape: false }
  return {
    kind: 'token-bucket',
    limit: capacity,
    windowMs: Math.ceil((capacity * interval) / refillRate),
    stateSize: 2,
    params: { capacity, rate: refillRate, intervalMs: interval, shape: 0 },
    id: algorithmId('token-bucket', { capacity, rate: refillRate, intervalMs: interval, shape: 0 }),
    consume: (s, at, now, cost) => meterDecision(s, at, now, cost, true, meter),
    peek: (s, at, now, cost) => meterDecision(s, at, now, cost, false, meter),
    refund: (s, at, now, cost) => meterRefund(s, at, now, cost, meter),
    charge: (s, at, now, cost) => meterCharge(s, at, now, cost, meter),
    expiresAt: (s, at) => meterExpiresAt(s, at, meter),
  }
}
