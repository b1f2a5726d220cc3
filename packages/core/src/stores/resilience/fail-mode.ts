import { consumeItems } from '../../consume-all.js'
import type { StoreMetrics } from '../../metrics/store-metrics.js'
import type { Algorithm, ConsumeItem, Decision, Store } from '../../types.js'

/** What a remote store does when its backend fails, times out or is known to be down. */
export type FailMode = 'open' | 'closed' | 'fallback'

/** Which fail mode made a decision: allowed (`'fail-open'`), refused (`'fail-closed'`), or the fallback store. */
export type FailSource = 'fail-open' | 'fail-closed' | 'fallback'

/** A decision that says where it came from: the backend (`S`), or a fail mode. */
export interface SourcedDecision<S extends string = string> extends Decision {
  source: S | FailSource
}

/** The decision when failing open: allowed, as a fresh key would be (even a cost above the limit). */
export function openDecision(algorithm: Algorithm, cost: number, peek: boolean): SourcedDecision {
  const remaining = Math.max(0, Math.floor(peek ? algorithm.limit : algorithm.limit - cost))
  return {
    allowed: true,
    limit: algorithm.limit,
    remaining,
    resetMs: 0,
    retryAfterMs: 0,
    delayMs: 0,
    policy: '',
    source: 'fail-open',
  }
}

/** The decision when failing closed: refused, to be retried once the backend may be back. */
export function closedDecision(algorithm: Algorithm, retryAfterMs: number): SourcedDecision {
  return {
    allowed: false,
    limit: algorithm.limit,
    remaining: 0,
    resetMs: retryAfterMs,
    retryAfterMs,
    delayMs: 0,
    policy: '',
    source: 'fail-closed',
  }
}

function tagged<S extends string>(decision: Decision, source: S | FailSource): SourcedDecision<S> {
  const out = decision as SourcedDecision<S>
  out.source = source
  return out
}

/** How a store fails: its mode, the fallback store (for `'fallback'`), and the wait it tells clients when closed. */
export interface FailModeOptions {
  readonly failMode: FailMode
  /** Required with `'fallback'`. */
  readonly fallback: Store | undefined
  /** The `retryAfterMs` of a fail-closed refusal. */
  readonly closedRetryAfterMs: number
  /** Where each decision taken by the fail mode is counted (`floodgate_fail_mode_total`). */
  readonly metrics?: StoreMetrics | undefined
}

/**
 * The decisions a remote store takes when its backend cannot answer, one function per store method. Never
 * rejects unless the fallback store does.
 */
export interface FailModeDecisions {
  decide(
    operation: 'consume' | 'peek',
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ): Promise<SourcedDecision>
  decideAll(items: readonly ConsumeItem[], now: number | undefined): Promise<SourcedDecision[]>
  /** A refund that could not reach the backend: applied to the fallback store, else dropped. */
  refund(algorithm: Algorithm, key: string, cost: number, now: number | undefined): Promise<void>
}

/**
 * Compile a store's fail mode once.
 *
 * @example
 * const fail = failModeDecisions({ failMode: 'fallback', fallback: new MemoryStore(), closedRetryAfterMs: 1000 })
 * const decision = await fail.decide('consume', algorithm, key, 1, undefined) // source: 'fallback'
 */
export function failModeDecisions(options: FailModeOptions): FailModeDecisions {
  const { failMode, fallback, closedRetryAfterMs, metrics } = options
  if (failMode === 'fallback' && fallback === undefined) {
    throw new TypeError("failModeDecisions: failMode 'fallback' needs a fallback store")
  }
  return {
    decide(operation, algorithm, key, cost, now) {
      metrics?.failMode(failMode)
      if (failMode === 'open') return Promise.resolve(openDecision(algorithm, cost, operation === 'peek'))
      if (failMode === 'closed') return Promise.resolve(closedDecision(algorithm, closedRetryAfterMs))
      const decision =
        operation === 'peek'
          ? fallback!.peek(algorithm, key, cost, now)
          : fallback!.consume(algorithm, key, cost, now)
      return Promise.resolve(decision).then((d) => tagged(d, 'fallback'))
    },
    decideAll(items, now) {
      metrics?.failMode(failMode)
      if (failMode === 'open')
        return Promise.resolve(items.map((i) => openDecision(i.algorithm, i.cost, false)))
      if (failMode === 'closed') {
        return Promise.resolve(items.map((i) => closedDecision(i.algorithm, closedRetryAfterMs)))
      }
      return consumeItems(fallback!, items, now).then((ds) => ds.map((d) => tagged(d, 'fallback')))
    },
    refund(algorithm, key, cost, now) {
      if (failMode !== 'fallback') return Promise.resolve()
      return Promise.resolve(fallback!.refund(algorithm, key, cost, now))
    },
  }
}
