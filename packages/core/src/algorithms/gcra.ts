import * as z from 'zod'
import type { Duration } from '../duration.js'
import type { Algorithm } from '../types.js'
import { ceilMs, decide, EPSILON, floorUnits, NEVER } from './decide.js'
import { algorithmId } from './id.js'
import { parseOptions, positive, positiveInt, rateDuration } from './options.js'

/** Options of {@link gcra}. */
export interface GcraOptions {
  /**
   * Requests per `period` in the long run; they are spaced `period / rate` apart once the burst is spent.
   * @example 10
   */
  rate: number
  /**
   * The period `rate` refers to.
   * @default '1s'
   * @example '1m'
   */
  period?: Duration
  /**
   * How many requests a rested client may send at once (the bucket's depth).
   * @default rate
   * @example 5
   */
  burst?: number
}

const schema = z.strictObject({
  rate: positive('a finite number > 0 (requests per period)'),
  period: rateDuration().default(1000),
  burst: positiveInt().optional(),
})

/**
 * GCRA, the generic cell rate algorithm: the leaky bucket as a meter, kept as one timestamp per key (the
 * theoretical arrival time, TAT). Exact, O(1); a refusal writes nothing, and the state expires exactly when
 * the bucket is full again.
 *
 * State: `[tat]`.
 *
 * @example gcra({ rate: 10, period: '1s', burst: 5 })
 */
export function gcra(options: GcraOptions): Algorithm {
  const { rate, period, burst: burstOption } = parseOptions(schema, options, 'gcra')
  const burst = burstOption ?? Math.max(1, Math.floor(rate))
  const emission = period / rate // ms between requests at the steady rate
  const tolerance = burst * emission // how far ahead of now the TAT may run

  const evaluate = (s: Float64Array, at: number, now: number, cost: number, commit: boolean) => {
    const tat = Math.max(s[at]!, now)
    const next = tat + cost * emission
    if (next - now <= tolerance + EPSILON) {
      if (commit) s[at] = next
      const ahead = (commit ? next : tat) - now
      return decide(true, burst, floorUnits((tolerance - ahead) / emission), ceilMs(ahead), 0, 0)
    }
    const ahead = tat - now
    // A cost above the burst never passes: even a rested key has only `burst` of room.
    const retryAfterMs = cost > burst ? NEVER : ceilMs(next - now - tolerance)
    return decide(false, burst, floorUnits((tolerance - ahead) / emission), ceilMs(ahead), retryAfterMs, 0)
  }

  return {
    kind: 'gcra',
    limit: burst,
    windowMs: Math.ceil(tolerance),
    stateSize: 1,
    params: { emissionMs: emission, toleranceMs: tolerance, burst },
    id: algorithmId('gcra', { emissionMs: emission, toleranceMs: tolerance, burst }),
    consume: (s, at, now, cost) => evaluate(s, at, now, cost, true),
    peek: (s, at, now, cost) => evaluate(s, at, now, cost, false),
    refund(s, at, now, cost) {
      s[at] = Math.max(now, s[at]! - cost * emission)
    },
    charge(s, at, now, cost) {
      // The TAT may run beyond the tolerance: a debt the next requests wait out.
      s[at] = Math.max(s[at]!, now) + cost * emission
    },
    expiresAt: (s, at) => s[at]!,
  }
}
