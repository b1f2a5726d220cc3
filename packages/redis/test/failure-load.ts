import { fixedWindow, type Limiter } from '@floodgate/core'
import {
  expectBoundedAndHonoured as expectBounded,
  type FailModeName,
  type FailureLoad,
  failureLoad,
  limitersByFailMode,
} from '@floodgate/test-harness'
import type { RedisClient } from '../src/index.js'
import { RedisStore } from '../src/index.js'

// The failure tests' load (the test harness's failureLoad) on limiters over a RedisStore: one limiter of every
// failure mode and the checks, with this package's time bound (the limiters' storeTimeout).
export const TIMEOUT_MS = 300
export const SLACK_MS = 500
export const algorithm = fixedWindow({ limit: 1_000_000, window: '1h' })

/** Keep `inFlight` requests per limiter going until stopped; record every outcome. */
export function load(limiters: Map<FailModeName, Limiter>, inFlight = 8): FailureLoad {
  return failureLoad({ limiters, backend: 'redis', inFlight })
}

/** the test harness's checks, bounded by `storeTimeout` plus scheduling slack. */
export function expectBoundedAndHonoured(run: FailureLoad, unhandled: unknown[]): void {
  expectBounded(run, { unhandled, boundMs: TIMEOUT_MS + SLACK_MS, backend: 'redis' })
}

/** A RedisStore on client `c`, and a limiter of each failure mode over it (each under its own prefix). */
export function limiters(c: RedisClient, store = new RedisStore({ client: c, cooldownMs: 200 })) {
  return limitersByFailMode(store, { algorithm, storeTimeout: TIMEOUT_MS })
}
