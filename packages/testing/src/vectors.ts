import {
  type Algorithm,
  calendarQuota,
  concurrency,
  type Decision,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'

/** One operation of a vector, at an absolute time, with the decision fields it must produce. */
export interface VectorStep {
  at: number
  /** `charge`: spend `cost` whatever the limit says (`Store.charge`; run only on stores that have it). */
  op?: 'consume' | 'peek' | 'refund' | 'reset' | 'release' | 'charge'
  cost?: number
  /** For `release`: which lease, by the order of the vector's allowed consumes (0: the first one's). */
  lease?: number
  /** Repeat the operation this many times at the same instant (each must match `expect`). */
  times?: number
  expect?: Partial<Omit<Decision, 'policy'>>
}

/** A fixed sequence of operations on one key with the decisions it must produce, in every store. */
export interface Vector {
  name: string
  algorithm: () => Algorithm
  steps: VectorStep[]
  /**
   * Decide through core (`consumeAll`, and a peek bounded as the limiter bounds it), as the limiter and the
   * HTTP handler do: for rules core applies over any store's decisions (a shaping bucket's `maxDelay`).
   */
  throughCore?: boolean
}

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0) // 12:00:00, a minute boundary
const s = (seconds: number) => T0 + seconds * 1000

export const vectors: readonly Vector[] = [
  {
    name: 'concurrency 3, lease 30s: to the limit, refused, a release frees one (twice: still one), leases expire, a late release frees nothing',
    algorithm: () => concurrency({ limit: 3, lease: '30s' }),
    steps: [
      { at: T0, expect: { allowed: true, remaining: 2, resetMs: 30_000 } }, // lease 0
      { at: T0, times: 2, expect: { allowed: true } }, // leases 1, 2
      { at: T0, op: 'peek', expect: { allowed: false, remaining: 0 } },
      // Refused: a running request may end any moment, so the wait said is at most 1 s, not the lease.
      { at: T0, expect: { allowed: false, remaining: 0, resetMs: 30_000, retryAfterMs: 1000 } },
      { at: T0 + 10, op: 'release', lease: 1 },
      { at: T0 + 10, op: 'peek', expect: { allowed: true, remaining: 1 } },
      { at: T0 + 10, op: 'release', lease: 1 },
      { at: T0 + 10, op: 'peek', expect: { allowed: true, remaining: 1 } },
      { at: T0 + 10, op: 'refund', cost: 3 }, // units go back by lease only
      { at: T0 + 20, expect: { allowed: true, remaining: 0, resetMs: 30_000 } }, // lease 3, to T0 + 30_020
      { at: T0 + 29_999, expect: { allowed: false, remaining: 0, retryAfterMs: 1, resetMs: 21 } },
      // Leases 0 and 2 expire at T0 + 30_000 (their holders never gave them back): two units free again.
      { at: T0 + 30_000, expect: { allowed: true, remaining: 1 } }, // lease 4
      { at: T0 + 30_000, op: 'release', lease: 0 },
      { at: T0 + 30_000, op: 'release', lease: 2 },
      { at: T0 + 30_000, op: 'peek', expect: { allowed: true, remaining: 1, resetMs: 30_000 } },
      { at: T0 + 30_020, op: 'peek', expect: { allowed: true, remaining: 2, resetMs: 29_980 } },
      { at: T0 + 30_020, cost: 2, expect: { allowed: true, remaining: 0 } }, // lease 5, two units
      { at: T0 + 30_020, cost: 4, expect: { allowed: false, retryAfterMs: Number.POSITIVE_INFINITY } },
      { at: T0 + 30_030, op: 'release', lease: 5 },
      { at: T0 + 30_030, op: 'peek', expect: { allowed: true, remaining: 2 } },
      { at: T0 + 30_030, op: 'release', lease: 4 },
      { at: T0 + 30_030, op: 'peek', expect: { allowed: true, remaining: 3, resetMs: 0 } },
    ],
  },
  {
    name: 'token bucket 10, 1 per 100ms: a burst of 10, the 11th refused, one more 100ms later',
    algorithm: () => tokenBucket({ capacity: 10, refillRate: 1, interval: '100ms' }),
    steps: [
      { at: T0, times: 9, expect: { allowed: true } },
      { at: T0, expect: { allowed: true, remaining: 0, resetMs: 1000 } },
      { at: T0, expect: { allowed: false, remaining: 0, retryAfterMs: 100 } },
      { at: T0 + 99, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 100, expect: { allowed: true, remaining: 0, resetMs: 1000 } },
      { at: T0 + 1100, op: 'peek', expect: { allowed: true, remaining: 10, resetMs: 0 } },
    ],
  },
  {
    name: 'fixed window 100/min: boundary burst of 2x',
    algorithm: () => fixedWindow({ limit: 100, window: '1m' }),
    steps: [
      { at: s(59), times: 100, expect: { allowed: true } },
      { at: s(59), expect: { allowed: false, remaining: 0, retryAfterMs: 1000, resetMs: 1000 } },
      { at: s(61), times: 99, expect: { allowed: true } },
      { at: s(61), expect: { allowed: true, remaining: 0, resetMs: 59_000 } },
      { at: s(61), expect: { allowed: false, retryAfterMs: 59_000 } },
      { at: s(61), op: 'refund', cost: 2 },
      { at: s(61), op: 'peek', expect: { allowed: true, remaining: 2 } },
    ],
  },
  {
    name: 'sliding window log 100/min refuses the boundary burst',
    algorithm: () => slidingWindowLog({ limit: 100, window: '1m' }),
    steps: [
      { at: s(59), times: 100, expect: { allowed: true } },
      { at: s(61), expect: { allowed: false, remaining: 0, retryAfterMs: 58_000, resetMs: 58_000 } },
      { at: s(119) - 1, expect: { allowed: false, retryAfterMs: 1 } },
      { at: s(119), cost: 100, expect: { allowed: true, remaining: 0, resetMs: 60_000 } },
    ],
  },
  {
    name: 'sliding window counter 100/min: prev 84, curr 18, 30% in gives 76.8',
    algorithm: () => slidingWindowCounter({ limit: 100, window: '1m' }),
    steps: [
      { at: s(0), cost: 84, expect: { allowed: true, remaining: 16 } },
      { at: s(77), cost: 18, expect: { allowed: true } },
      { at: s(78), op: 'peek', expect: { allowed: true, remaining: 23, resetMs: 102_000 } },
      { at: s(78), cost: 23, expect: { allowed: true, remaining: 0 } },
      { at: s(78), expect: { allowed: false, retryAfterMs: 572 } },
    ],
  },
  {
    name: 'sliding window counter 100/min: prev 80, curr 30, 40% in gives 78',
    algorithm: () => slidingWindowCounter({ limit: 100, window: '1m' }),
    steps: [
      { at: s(0), cost: 80 },
      { at: s(83), cost: 30, expect: { allowed: true } },
      { at: s(84), op: 'peek', expect: { allowed: true, remaining: 22 } },
      { at: s(84), cost: 23, expect: { allowed: false, retryAfterMs: 750 } },
      { at: s(84) + 749, cost: 23, expect: { allowed: false, retryAfterMs: 1 } },
      { at: s(84) + 750, cost: 23, expect: { allowed: true, remaining: 0 } },
    ],
  },
  {
    name: 'leaky bucket 10, 1 per 100ms, police: the 11th is dropped',
    algorithm: () => leakyBucket({ capacity: 10, leakRate: 1, interval: '100ms' }),
    steps: [
      { at: T0, times: 10, expect: { allowed: true, delayMs: 0 } },
      { at: T0, expect: { allowed: false, retryAfterMs: 100 } },
    ],
  },
  {
    name: 'leaky bucket 10, 1 per 100ms, shape: released one per 100ms',
    algorithm: () => leakyBucket({ capacity: 10, leakRate: 1, interval: '100ms', mode: 'shape' }),
    steps: [
      { at: T0, expect: { allowed: true, delayMs: 0 } },
      { at: T0, expect: { allowed: true, delayMs: 100 } },
      { at: T0, expect: { allowed: true, delayMs: 200 } },
      { at: T0, times: 6, expect: { allowed: true } },
      { at: T0, expect: { allowed: true, delayMs: 900, remaining: 0 } },
      { at: T0, expect: { allowed: false, retryAfterMs: 100 } },
      { at: T0 + 250, expect: { allowed: true, delayMs: 750 } },
    ],
  },
  {
    name: 'calendar quota 10,000/day: the 10,001st is refused until 00:00 UTC',
    algorithm: () => calendarQuota({ limit: 10_000, period: 'day' }),
    steps: [
      { at: Date.UTC(2026, 2, 14, 9), cost: 9_999, expect: { allowed: true, remaining: 1 } },
      { at: Date.UTC(2026, 2, 14, 23), expect: { allowed: true, remaining: 0, resetMs: 3_600_000 } },
      { at: Date.UTC(2026, 2, 14, 23), expect: { allowed: false, retryAfterMs: 3_600_000 } },
      { at: Date.UTC(2026, 2, 15) - 1, expect: { allowed: false, retryAfterMs: 1 } },
      { at: Date.UTC(2026, 2, 15), expect: { allowed: true, remaining: 9_999, resetMs: 86_400_000 } },
    ],
  },
  {
    name: 'calendar quota per month: January has 31 days, February 2028 29, and a month resets on the 1st',
    algorithm: () => calendarQuota({ limit: 3, period: 'month' }),
    steps: [
      { at: Date.UTC(2028, 0, 31, 12), times: 3, expect: { allowed: true } },
      { at: Date.UTC(2028, 0, 31, 12), expect: { allowed: false, retryAfterMs: 12 * 3_600_000 } },
      { at: Date.UTC(2028, 1, 1), expect: { allowed: true, remaining: 2, resetMs: 29 * 86_400_000 } },
      {
        at: Date.UTC(2028, 1, 29, 23, 59),
        cost: 2,
        expect: { allowed: true, remaining: 0, resetMs: 60_000 },
      },
      { at: Date.UTC(2028, 2, 1), op: 'peek', expect: { allowed: true, remaining: 3, resetMs: 0 } },
      { at: Date.UTC(2028, 11, 31), cost: 3, expect: { allowed: true, resetMs: 86_400_000 } },
    ],
  },
  {
    name: 'calendar quota per ISO week: Sunday night is the same week, Monday 00:00 a new one',
    algorithm: () => calendarQuota({ limit: 2, period: 'week' }),
    steps: [
      // 2026-03-09 is a Monday.
      { at: Date.UTC(2026, 2, 9), expect: { allowed: true, resetMs: 7 * 86_400_000 } },
      { at: Date.UTC(2026, 2, 15, 23, 59, 59), expect: { allowed: true, remaining: 0, resetMs: 1000 } },
      { at: Date.UTC(2026, 2, 15, 23, 59, 59), expect: { allowed: false, retryAfterMs: 1000 } },
      { at: Date.UTC(2026, 2, 16), cost: 2, expect: { allowed: true, remaining: 0 } },
    ],
  },
  {
    name: 'calendar quota at +09:00: a day ends at midnight in Tokyo (15:00 UTC)',
    algorithm: () => calendarQuota({ limit: 1, period: 'day', utcOffset: '+09:00' }),
    steps: [
      { at: Date.UTC(2026, 2, 14, 14, 30), expect: { allowed: true, resetMs: 1_800_000 } },
      { at: Date.UTC(2026, 2, 14, 14, 59), expect: { allowed: false, retryAfterMs: 60_000 } },
      { at: Date.UTC(2026, 2, 14, 15), expect: { allowed: true } },
    ],
  },
  {
    name: 'leaky bucket 10, 1 per 100ms, shape, maxDelay 300ms: waits up to 300ms, then refused spending nothing',
    algorithm: () =>
      leakyBucket({ capacity: 10, leakRate: 1, interval: '100ms', mode: 'shape', maxDelay: '300ms' }),
    throughCore: true,
    steps: [
      { at: T0, op: 'peek', expect: { allowed: true, remaining: 4, delayMs: 0 } },
      { at: T0, expect: { allowed: true, delayMs: 0, remaining: 3 } },
      { at: T0, expect: { allowed: true, delayMs: 100, remaining: 2 } },
      { at: T0, expect: { allowed: true, delayMs: 200, remaining: 1 } },
      { at: T0, expect: { allowed: true, delayMs: 300, remaining: 0 } },
      {
        at: T0,
        times: 3,
        expect: { allowed: false, retryAfterMs: 100, remaining: 0, resetMs: 400, delayMs: 0 },
      },
      { at: T0 + 99, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 100, op: 'peek', expect: { allowed: true, delayMs: 300, remaining: 1 } },
      { at: T0 + 100, cost: 2, expect: { allowed: true, delayMs: 300, remaining: 0, resetMs: 500 } },
      { at: T0 + 100, expect: { allowed: false, retryAfterMs: 200 } },
      { at: T0 + 300, expect: { allowed: true, delayMs: 300 } },
    ],
  },
  {
    name: 'charge, fixed window 10/min: a settled cost takes the count past the limit, refused until the window ends',
    algorithm: () => fixedWindow({ limit: 10, window: '1m' }),
    steps: [
      { at: s(5), op: 'charge', cost: 3 },
      { at: s(10), cost: 4, expect: { allowed: true, remaining: 3 } },
      { at: s(20), op: 'charge', cost: 8 },
      {
        at: s(30),
        expect: { allowed: false, remaining: 0, resetMs: 30_000, retryAfterMs: 30_000 },
      },
      { at: s(30), op: 'refund', cost: 6 },
      { at: s(30), expect: { allowed: true, remaining: 0 } },
      { at: s(60), expect: { allowed: true, remaining: 9, resetMs: 60_000 } },
    ],
  },
  {
    name: 'charge, sliding window counter 10/min: 14 in the window, the next waits for the weighted count',
    algorithm: () => slidingWindowCounter({ limit: 10, window: '1m' }),
    steps: [
      { at: s(0), cost: 4, expect: { allowed: true, remaining: 6 } },
      { at: s(30), op: 'charge', cost: 10 },
      {
        at: s(30),
        expect: { allowed: false, remaining: 0, resetMs: 90_000, retryAfterMs: 51_429 },
      },
      { at: s(60) + 21_428, expect: { allowed: false, retryAfterMs: 1 } },
      { at: s(60) + 21_429, expect: { allowed: true, remaining: 0 } },
    ],
  },
  {
    name: 'charge, sliding window log 5/min: the log fills with entries at now, over its oldest',
    algorithm: () => slidingWindowLog({ limit: 5, window: '1m' }),
    steps: [
      { at: s(0), cost: 2, expect: { allowed: true, remaining: 3 } },
      { at: s(10), op: 'charge', cost: 4 },
      {
        at: s(10),
        expect: { allowed: false, remaining: 0, resetMs: 60_000, retryAfterMs: 50_000 },
      },
      { at: s(60) - 1, expect: { allowed: false, retryAfterMs: 1 } },
      { at: s(60), expect: { allowed: true, remaining: 0 } },
      { at: s(60), op: 'charge', cost: 9 },
      { at: s(60), expect: { allowed: false, remaining: 0, retryAfterMs: 60_000 } },
      { at: s(120), cost: 5, expect: { allowed: true, remaining: 0 } },
    ],
  },
  {
    name: 'charge, token bucket 10, 1 per 100ms: a debt of 4 drains before the next request',
    algorithm: () => tokenBucket({ capacity: 10, refillRate: 1, interval: '100ms' }),
    steps: [
      { at: T0, cost: 4, expect: { allowed: true, remaining: 6 } },
      { at: T0, op: 'charge', cost: 10 },
      {
        at: T0,
        expect: { allowed: false, remaining: 0, resetMs: 1400, retryAfterMs: 500 },
      },
      { at: T0 + 499, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 500, expect: { allowed: true, remaining: 0, resetMs: 1000 } },
    ],
  },
  {
    name: 'charge, leaky bucket 5, 1 per 100ms, shape: the debt drains, then requests are shaped again',
    algorithm: () => leakyBucket({ capacity: 5, leakRate: 1, interval: '100ms', mode: 'shape' }),
    steps: [
      { at: T0, op: 'charge', cost: 7 },
      { at: T0, expect: { allowed: false, remaining: 0, resetMs: 700, retryAfterMs: 300 } },
      { at: T0 + 300, expect: { allowed: true, remaining: 0, delayMs: 400, resetMs: 500 } },
    ],
  },
  {
    name: 'charge, gcra 10/s burst 5: the TAT runs past the tolerance, the next request waits it out',
    algorithm: () => gcra({ rate: 10, period: '1s', burst: 5 }),
    steps: [
      { at: T0, expect: { allowed: true, remaining: 4, resetMs: 100 } },
      { at: T0, op: 'charge', cost: 8 },
      { at: T0, expect: { allowed: false, remaining: 0, resetMs: 900, retryAfterMs: 500 } },
      { at: T0 + 499, expect: { allowed: false, retryAfterMs: 1 } },
      { at: T0 + 500, expect: { allowed: true, remaining: 0, resetMs: 500 } },
    ],
  },
  {
    name: 'charge, calendar quota 3/day: over the quota until 00:00 UTC',
    algorithm: () => calendarQuota({ limit: 3, period: 'day' }),
    steps: [
      { at: Date.UTC(2026, 2, 14, 23), expect: { allowed: true, remaining: 2 } },
      { at: Date.UTC(2026, 2, 14, 23), op: 'charge', cost: 5 },
      {
        at: Date.UTC(2026, 2, 14, 23),
        expect: { allowed: false, remaining: 0, resetMs: 3_600_000, retryAfterMs: 3_600_000 },
      },
      { at: Date.UTC(2026, 2, 15), expect: { allowed: true, remaining: 2 } },
    ],
  },
]
