import { fixedWindow, MemoryStore } from '@floodgate/core'
import {
  byFailMode,
  expectBoundedAndHonoured as expectBounded,
  type FailureLoad,
  failureLoad,
} from '@floodgate/test-harness'
import type { FailMode, RedisClient } from '../src/index.js'
import { RedisStore } from '../src/index.js'

// The failure tests' load (the test harness's failureLoad) on RedisStores: the stores of every fail mode and the
// checks, with this package's time bound.
export const TIMEOUT_MS = 300
export const SLACK_MS = 500
export const algorithm = fixedWindow({ limit: 1_000_000, window: '1h' })

/** Keep `inFlight` requests per store going until stopped; record every outcome. */
export function load(stores: Map<FailMode, RedisStore>, inFlight = 8): FailureLoad {
  return failureLoad({ stores, backend: 'redis', algorithm, inFlight })
}

/** the test harness's checks, bounded by `timeoutMs` plus scheduling slack. */
export function expectBoundedAndHonoured(run: FailureLoad, unhandled: unknown[]): void {
  expectBounded(run, { unhandled, boundMs: TIMEOUT_MS + SLACK_MS, backend: 'redis' })
}

/** A RedisStore of each fail mode on client `c`, each under its own prefix. */
export function stores(c: RedisClient): Map<FailMode, RedisStore> {
  return byFailMode(
    (mode) =>
      new RedisStore({
        client: c,
        prefix: `failure-${mode}`,
        timeoutMs: TIMEOUT_MS,
        cooldownMs: 200,
        failMode: mode,
        fallback: mode === 'fallback' ? new MemoryStore() : undefined,
      }),
  )
}
