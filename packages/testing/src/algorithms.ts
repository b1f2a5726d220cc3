import {
  type Algorithm,
  calendarQuota,
  concurrency,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'
import type { AlgorithmKind } from '@floodgate/core/internal'

/** One algorithm configuration that every store must run identically. */
export interface AlgorithmCase {
  name: string
  create: () => Algorithm
}

/**
 * Small limits and odd rates, so that random sequences reach refusals, refunds and fractional times
 * (gcra's emission interval is 333.33... ms).
 */
export const algorithmCases: readonly AlgorithmCase[] = [
  { name: 'fixed-window', create: () => fixedWindow({ limit: 5, window: '1s' }) },
  { name: 'sliding-window-counter', create: () => slidingWindowCounter({ limit: 5, window: '1s' }) },
  { name: 'sliding-window-log', create: () => slidingWindowLog({ limit: 5, window: '1s' }) },
  { name: 'token-bucket', create: () => tokenBucket({ capacity: 5, refillRate: 2, interval: '1s' }) },
  { name: 'leaky-bucket police', create: () => leakyBucket({ capacity: 5, leakRate: 3, interval: '1s' }) },
  {
    name: 'leaky-bucket shape',
    create: () => leakyBucket({ capacity: 5, leakRate: 3, interval: '1s', mode: 'shape' }),
  },
  { name: 'gcra', create: () => gcra({ rate: 3, period: '1s', burst: 4 }) },
  { name: 'calendar-quota', create: () => calendarQuota({ limit: 5, period: 'day', utcOffset: '-05:30' }) },
  // A lease under the 1 s a refusal says at most, so that a client that waits retryAfterMs passes.
  { name: 'concurrency', create: () => concurrency({ limit: 5, lease: '900ms' }) },
]

/**
 * An algorithm of `kind` that admits `limit` units and gives back none within a test's time: a window of an
 * hour, a bucket that refills one unit an hour, GCRA over a day, a monthly quota. Exactness tests fire more
 * than `limit` requests at one of each and count exactly `limit` admitted.
 *
 * @example quotaAlgorithm('token-bucket', 100) // tokenBucket({ capacity: 100, refillRate: 1, interval: '1h' })
 */
export function quotaAlgorithm(kind: AlgorithmKind, limit: number): Algorithm {
  switch (kind) {
    case 'fixed-window':
      return fixedWindow({ limit, window: '1h' })
    case 'sliding-window-counter':
      return slidingWindowCounter({ limit, window: '1h' })
    case 'sliding-window-log':
      return slidingWindowLog({ limit, window: '1h' })
    case 'token-bucket':
      return tokenBucket({ capacity: limit, refillRate: 1, interval: '1h' })
    case 'leaky-bucket':
      return leakyBucket({ capacity: limit, leakRate: 1, interval: '1h' })
    case 'gcra':
      return gcra({ rate: limit, period: '1d', burst: limit })
    case 'calendar-quota':
      return calendarQuota({ limit, period: 'month' })
    case 'concurrency':
      return concurrency({ limit, lease: '1h' })
  }
}
