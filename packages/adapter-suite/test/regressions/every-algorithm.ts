import {
  type Algorithm,
  type Duration,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'

/**
 * One of each algorithm but the calendar quota, each admitting `limit` units: the windows of a minute, the
 * buckets and GCRA giving one unit back per `refill`.
 *
 * @example everyAlgorithm(3, '1s')
 */
export const everyAlgorithm = (limit: number, refill: Duration): Algorithm[] => [
  fixedWindow({ limit, window: '1m' }),
  slidingWindowLog({ limit, window: '1m' }),
  slidingWindowCounter({ limit, window: '1m' }),
  tokenBucket({ capacity: limit, refillRate: 1, interval: refill }),
  leakyBucket({ capacity: limit, leakRate: 1, interval: refill }),
  gcra({ rate: 1, period: refill, burst: limit }),
]
