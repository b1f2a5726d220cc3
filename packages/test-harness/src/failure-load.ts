import {
  type Algorithm,
  type ConsumeItem,
  type Decision,
  type FailMode,
  fixedWindow,
  type Store,
} from '@floodgate/core'
import { afterAll, beforeAll, expect } from 'vitest'

// What the failure tests of every remote store share: load that records every outcome, one store per fail
// mode, and the checks. Assertions count outcomes; the only clock read is each request's own latency.

/** Every fail mode, in the order the tests go through them. */
export const FAIL_MODES: readonly FailMode[] = ['open', 'closed', 'fallback']

/** A store under load: its decisions say where they came from (`'redis'`, `'postgres'`, or a fail mode). */
export interface SourcedStore {
  consume(algorithm: Algorithm, key: string, cost: number): Promise<Decision & { source: string }>
}

/** One decision of the load. */
export interface LoadRecord {
  mode: FailMode
  key: string
  source: string
  allowed: boolean
  ms: number
}

/** A store of each fail mode, made by `create`. */
export function byFailMode<S>(create: (mode: FailMode) => S): Map<FailMode, S> {
  return new Map(FAIL_MODES.map((mode) => [mode, create(mode)]))
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

/** Wait (on events, polling the outcome count) until `done()`; the test's own timeout bounds it. */
export async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10))
}

/** What {@link failureLoad} runs. */
export interface FailureLoadOptions {
  /** A store per fail mode (see {@link byFailMode}). */
  stores: Map<FailMode, SourcedStore>
  /** The `source` of a decision the backend took: `'redis'`, `'postgres'`. */
  backend: string
  algorithm: Algorithm
  /** Requests in flight per store. */
  inFlight: number
  /** How many keys the load goes round (on a Cluster they spread over every master). */
  keys?: number
}

/** Load running on every store: what it recorded so far, and ways to wait on it. */
export interface FailureLoad {
  readonly records: LoadRecord[]
  /** Decisions that rejected (there must be none). */
  readonly rejected: unknown[]
  count(test: (r: LoadRecord) => boolean): number
  /**
   * Wait until every mode has `atLeast` decisions from the backend (`fromBackend`) or not from it, among the
   * records from the `since`-th on.
   */
  eachMode(atLeast: number, fromBackend: boolean, since?: number): Promise<void>
  /** Whether, for every mode, every key has had a decision from the backend since the `from`-th record. */
  allKeysFromBackendSince(from: number): boolean
  stop(): Promise<void>
}

/** Keep `inFlight` requests per store going until stopped, 2 ms apart; record every outcome. */
export function failureLoad(options: FailureLoadOptions): FailureLoad {
  const { stores, backend, algorithm, inFlight, keys = 50 } = options
  const records: LoadRecord[] = []
  const rejected: unknown[] = []
  let running = true
  let next = 0
  const worker = async (mode: FailMode, store: SourcedStore) => {
    while (running) {
      const start = performance.now()
      try {
        const key = `load-${next++ % keys}`
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
  const modes = [...stores.keys()]
  return {
    records,
    rejected,
    count: (test) => records.filter(test).length,
    eachMode(atLeast, fromBackend, since = 0) {
      const counted = (m: FailMode) =>
        records.slice(since).filter((r) => r.mode === m && (r.source === backend) === fromBackend).length
      return until(() => modes.every((m) => counted(m) >= atLeast))
    },
    allKeysFromBackendSince(from) {
      const seen = new Set(
        records
          .slice(from)
          .filter((r) => r.source === backend)
          .map((r) => `${r.mode} ${r.key}`),
      )
      return seen.size === modes.length * keys
    },
    async stop() {
      running = false
      await Promise.all(workers)
    },
  }
}

/** Every decision the backend did not take is as its store's fail mode says. */
export function expectModesHonoured(records: readonly LoadRecord[], backend: string): void {
  for (const r of records.filter((r) => r.source !== backend)) {
    if (r.mode === 'open') expect(r).toMatchObject({ source: 'fail-open', allowed: true })
    if (r.mode === 'closed') expect(r).toMatchObject({ source: 'fail-closed', allowed: false })
    if (r.mode === 'fallback') expect(r).toMatchObject({ source: 'fallback', allowed: true })
  }
}

/**
 * What every failure test checks once its load has stopped: no decision rejected, no unhandled rejection,
 * none slower than `boundMs` (the store's `timeoutMs` plus scheduling slack), every degraded decision as its
 * fail mode says.
 */
export function expectBoundedAndHonoured(
  run: FailureLoad,
  checks: { unhandled: readonly unknown[]; boundMs: number; backend: string },
): void {
  expect(run.rejected).toEqual([])
  expect(checks.unhandled).toEqual([])
  expect(run.count((r) => r.ms > checks.boundMs)).toBe(0)
  expectModesHonoured(run.records, checks.backend)
}

/** A store of `failMode: 'fallback'` whose backend is about to stop answering, and its fallback store. */
export interface FallingBack {
  store: Store & { consumeAll(items: readonly ConsumeItem[]): Promise<Decision[]> }
  fallback: Store
  /** The `source` of a decision the backend took: `'redis'`, `'postgres'`. */
  backend: string
  /** Make the backend stop answering (SIGSTOP a server, or its connection's process). */
  freeze(): Promise<void> | void
}

/**
 * The operations beside consume, while the backend does not answer: with one unit of key `k` spent through the
 * backend first, a peek and a consumeAll are decided by the fallback store (which has spent nothing: a limit of
 * 2 left), and a refund resolves, applied to the fallback store (which has nothing to give back). The backend is
 * left frozen: thaw it after.
 */
export async function expectOperationsFallBack(parts: FallingBack): Promise<void> {
  const { store, fallback } = parts
  const small = fixedWindow({ limit: 2, window: '1h' })
  expect(((await store.consume(small, 'k', 1)) as Decision & { source: string }).source).toBe(parts.backend)
  await parts.freeze()
  const peek = (await store.peek(small, 'k', 1)) as Decision & { source: string }
  expect(peek.source).toBe('fallback')
  expect(peek.remaining).toBe(2)
  const all = await store.consumeAll([
    { algorithm: small, key: 'k', cost: 1 },
    { algorithm: small, key: 'j', cost: 1 },
  ])
  expect(all.map((d) => (d as Decision & { source: string }).source)).toEqual(['fallback', 'fallback'])
  await expect(store.refund(small, 'k', 1)).resolves.toBeUndefined()
  expect((await fallback.peek(small, 'k', 1)).remaining).toBe(2)
}
