import {
  type Algorithm,
  calendarQuota,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'

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
]
