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
import type { AlgorithmKind } from '@floodgate/core/internal'

/**
 * One of each algorithm but the calendar quota, each admitting `limit` units: the windows of a minute, the
 * buckets and GCRA giving one unit back per `refill`. For the tests that hold for every algorithm.
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

/**
 * Every kind, with the time an exactness test fires at: the windowed kinds (aligned windows, calendar periods)
 * at one fixed instant, so that no test straddles a boundary; the others on the store's clock (`undefined`),
 * as servers in production run.
 */
export const exactnessCases: readonly { kind: AlgorithmKind; now: number | undefined }[] = [
  { kind: 'fixed-window', now: Date.UTC(2026, 0, 1, 12, 30) },
  { kind: 'sliding-window-counter', now: Date.UTC(2026, 0, 1, 12, 30) },
  { kind: 'sliding-window-log', now: undefined },
  { kind: 'token-bucket', now: undefined },
  { kind: 'leaky-bucket', now: undefined },
  { kind: 'gcra', now: undefined },
  { kind: 'calendar-quota', now: Date.UTC(2026, 0, 1, 12, 30) },
]
