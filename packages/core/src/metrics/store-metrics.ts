import type { FailMode } from '../stores/resilience/fail-mode.js'
import { METRICS, STORE_ERROR_KINDS, type StoreErrorKind, type StoreOperation } from './catalog.js'
import { type BoundCounter, type BoundHistogram, guardedSink, type MetricsSink } from './sink.js'

/** How a call to a backend failed, as a store sees it (core's `CallFailure` is one). */
export interface FailureKind {
  readonly timedOut: boolean
  /** Whether the backend looks unavailable (a timeout or a connection error, not an error reply). */
  readonly outage: boolean
}

/** What a remote store reports, with its instruments made once, when the store is created. */
export interface StoreMetrics {
  /** Time `call` (a call to the backend) as `operation`: resolves with what it resolves with. */
  timed<T>(operation: StoreOperation, call: Promise<T>): Promise<T>
  /**
   * The duration histogram of `operation`, for a store that times its calls itself (on their deadline entry:
   * `Deadlines.start(resolve, histogram)`), with no promise of its own; undefined when not reported.
   */
  histogramOf(operation: StoreOperation): BoundHistogram | undefined
  /** A call to the backend failed (reported once per failure, where the store reports it to `onError`). */
  failed(failure: FailureKind): void
  /** A decision was taken by the fail mode instead of the backend. */
  failMode(mode: FailMode): void
  /** A refusal was answered from the block cache. */
  blockCacheHit(): void
  /** Stop reporting the circuit's state (the store is closed). */
  close(): void
}

/** The kind of a failure, as `floodgate_store_errors_total` labels it. */
export const errorKind = (failure: FailureKind): StoreErrorKind =>
  failure.timedOut ? 'timeout' : failure.outage ? 'connection' : 'reply'

const FAIL_MODES: readonly FailMode[] = ['open', 'closed', 'fallback']

/**
 * `performance.now`, read through the object itself: the global `performance` is an accessor, and reading it
 * on every call (twice per store call) costs more than the clock does (533 against 314 instructions a read
 * under callgrind, bench/suites/metrics/store-call-loop.mjs).
 */
function monotonicMs(): () => number {
  const { performance } = globalThis
  return () => performance.now()
}

/** Record the ms since `startedAt` (on `clock`) in seconds (on a guarded sink: a failure is ignored). */
export function observe(histogram: BoundHistogram, clock: () => number, startedAt: number): void {
  histogram.record((clock() - startedAt) / 1000)
}

/**
 * Make a store's instruments, or `undefined` without a sink (the store then checks one field per call and
 * does nothing else). `store` is the `store` label (`'redis'`, `'postgres'`); `circuitOpen`, when the store has
 * a circuit, is read whenever metrics are collected. `timed` times a call's promise on `clock`
 * (`performance.now`); a store whose calls wait in a `Deadlines` queue times them there instead, with no promise
 * of its own: `deadlines.start(resolve, metrics?.histogramOf('consume'))` records the call's duration, on the
 * same monotonic clock, when it settles (the RedisStore does; 0.43x the instructions of `timed`).
 *
 * @example
 * this.metrics = createStoreMetrics({ sink: options.metrics, store: 'postgres', operations: ['consume'], circuitOpen: () => this.circuit.open })
 * return this.metrics ? this.metrics.timed('consume', call) : call
 */
export function createStoreMetrics(parts: {
  sink: MetricsSink | undefined
  store: string
  operations: readonly StoreOperation[]
  circuitOpen?: () => boolean
  /** The monotonic ms clock calls are timed with; tests pass a virtual one. */
  clock?: () => number
}): StoreMetrics | undefined {
  const { store, circuitOpen, clock = monotonicMs() } = parts
  if (parts.sink === undefined) return undefined
  const sink = guardedSink(parts.sink)
  const durations = new Map<StoreOperation, BoundHistogram>(
    parts.operations.map((operation) => [
      operation,
      sink.histogram(METRICS.storeDuration, { store, operation }),
    ]),
  )
  const errors = Object.fromEntries(
    STORE_ERROR_KINDS.map((kind) => [kind, sink.counter(METRICS.storeErrors, { store, kind })]),
  ) as Record<StoreErrorKind, BoundCounter>
  const modes = Object.fromEntries(
    FAIL_MODES.map((mode) => [mode, sink.counter(METRICS.failMode, { store, mode })]),
  ) as Record<FailMode, BoundCounter>
  const hits = sink.counter(METRICS.blockCacheHits, { store })
  const stopCircuit = circuitOpen
    ? sink.gauge(METRICS.circuitOpen, { store }, () => (circuitOpen() ? 1 : 0))
    : undefined
  const count = (counter: BoundCounter) => counter.add(1)
  return {
    timed(operation, call) {
      const histogram = durations.get(operation)
      if (histogram === undefined) return call
      const startedAt = clock()
      return call.then(
        (value) => {
          observe(histogram, clock, startedAt)
          return value
        },
        (error) => {
          observe(histogram, clock, startedAt)
          throw error
        },
      )
    },
    histogramOf: (operation) => durations.get(operation),
    failed: (failure) => count(errors[errorKind(failure)]),
    failMode: (mode) => count(modes[mode]),
    blockCacheHit: () => count(hits),
    close: () => stopCircuit?.(),
  }
}
