import { fixedWindow, MemoryStore } from '@floodgate/core'
import { afterAll, beforeAll, expect } from 'vitest'
import type { FailMode, RedisClient, RedisDecision } from '../src/index.js'
import { RedisStore } from '../src/index.js'

// What the failure tests share: load that records every outcome, the stores of every fail mode, and the
// checks. Assertions count outcomes; the only clock read is each request's own latency.
export const TIMEOUT_MS = 300
export const SLACK_MS = 500
export const MODES: FailMode[] = ['open', 'closed', 'fallback']
export const algorithm = fixedWindow({ limit: 1_000_000, window: '1h' })
/** How many keys the load goes round (on a Cluster they spread over every master). */
const KEYS = 50

export interface Record {
  mode: FailMode
  key: string
  source: RedisDecision['source']
  allowed: boolean
  ms: number
}

/** Collect unhandled rejections while the file runs (there must be none). */
export function watchUnhandled(): unknown[] {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  beforeAll(() => {
    process.on('unhandledRejection', onUnhandled)
  })
  afterAll(() => {
    process.off('unhandledRejection', onUnhandled)
  })
  return unhandled
}

/** Keep `inFlight` requests per store going until stopped; record every outcome. */
export function load(stores: Map<FailMode, RedisStore>, inFlight = 8) {
  const records: Record[] = []
  const rejected: unknown[] = []
  let running = true
  let next = 0
  const worker = async (mode: FailMode, store: RedisStore) => {
    while (running) {
      const start = performance.now()
      try {
        const key = `load-${next++ % KEYS}`
        const d = await store.consume(algorithm, key, 1)
        records.push({ mode, key, source: d.source, allowed: d.allowed, ms: performance.now() - start })
      } catch (error) {
        rejected.push(error)
      }
      await new Promise((r) => setTimeout(r, 2))
    }
  }
  const workers = [...stores].flatMap(([mode, store]) =>
    Array.from({ length: inFlight }, () => worker(mode, store)),
  )
  return {
    records,
    rejected,
    count: (test: (r: Record) => boolean) => records.filter(test).length,
    /**
     * Wait until every mode has `atLeast` decisions from Redis (`fromRedis`) or not from Redis, among the
     * records from the `since`-th on.
     */
    eachMode(atLeast: number, fromRedis: boolean, since = 0): Promise<void> {
      const counted = (m: FailMode) =>
        records.slice(since).filter((r) => r.mode === m && (r.source === 'redis') === fromRedis).length
      return until(() => MODES.every((m) => counted(m) >= atLeast))
    },
    /** Whether, for every mode, every key has had a decision from Redis since the `from`-th record. */
    allKeysFromRedisSince(from: number): boolean {
      const seen = new Set(
        records
          .slice(from)
          .filter((r) => r.source === 'redis')
          .map((r) => `${r.mode} ${r.key}`),
      )
      return seen.size === MODES.length * KEYS
    },
    async stop() {
      running = false
      await Promise.all(workers)
    },
  }
}

/**
 * What every failure test checks once its load has stopped: no decision rejected, no unhandled rejection,
 * none slower than `timeoutMs` plus scheduling slack, every degraded decision as its fail mode says.
 */
export function expectBoundedAndHonoured(run: ReturnType<typeof load>, unhandled: unknown[]): void {
  expect(run.rejected).toEqual([])
  expect(unhandled).toEqual([])
  expect(run.count((r) => r.ms > TIMEOUT_MS + SLACK_MS)).toBe(0)
  expectModesHonoured(run.records)
}

/** Wait (on events, polling the outcome count) until `done()`; the test's own timeout bounds it. */
export async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10))
}

export function stores(c: RedisClient): Map<FailMode, RedisStore> {
  return new Map(
    MODES.map((mode) => [
      mode,
      new RedisStore({
        client: c,
        prefix: `failure-${mode}`,
        timeoutMs: TIMEOUT_MS,
        cooldownMs: 200,
        failMode: mode,
        fallback: mode === 'fallback' ? new MemoryStore() : undefined,
      }),
    ]),
  )
}

export function expectModesHonoured(records: Record[]) {
  const degraded = records.filter((r) => r.source !== 'redis')
  for (const r of degraded) {
    if (r.mode === 'open') expect(r).toMatchObject({ source: 'fail-open', allowed: true })
    if (r.mode === 'closed') expect(r).toMatchObject({ source: 'fail-closed', allowed: false })
    if (r.mode === 'fallback') expect(r).toMatchObject({ source: 'fallback', allowed: true })
  }
}
