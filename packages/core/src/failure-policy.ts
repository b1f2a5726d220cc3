import * as z from 'zod'
import { toMs } from './duration.js'
import { RateLimitConfigError } from './errors.js'
import { RateLimitRequestError } from './http/errors.js'
import { METRICS } from './metrics/catalog.js'
import type { MetricsSink } from './metrics/sink.js'
import type { Algorithm, Awaitable, ConsumeItem, Decision, Store } from './types.js'
import { duration, storeSchema } from './validate.js'

// What a request gets when its store cannot answer, decided in one place: the limiter's `failMode` and
// `storeTimeout` (createLimiter and rateLimit take both, with the same defaults). A store only reports that it
// could not answer: it rejects, within the bound the limiter gave it.

/**
 * What the limiter does when its store cannot answer (it rejects, throws, or passes `storeTimeout`): `'open'`
 * lets the request through, `'closed'` refuses it, `{ fallback }` decides on the fallback store instead.
 */
export type FailMode = 'open' | 'closed' | { fallback: Store }

/** Which failure mode took a decision: allowed (`'fail-open'`), refused (`'fail-closed'`), or the fallback store. */
export type FailSource = 'fail-open' | 'fail-closed' | 'fallback'

/** A decision that says where it came from: the store's backend (`S`), or the failure mode. */
export interface SourcedDecision<S extends string = string> extends Decision {
  source: S | FailSource
}

/**
 * The defaults of `failMode` and `storeTimeout`, written once: createLimiter and rateLimit apply them, and a
 * store that bounds its own calls uses `storeTimeout` until a limiter sets its bound.
 */
export const FAILURE_DEFAULTS = { failMode: 'open', storeTimeout: '500ms' } as const

/** The default `storeTimeout`, in ms. */
export const DEFAULT_STORE_TIMEOUT_MS = toMs(FAILURE_DEFAULTS.storeTimeout) as number

/**
 * How long a refusal of `failMode: 'closed'` asks the client to wait, in ms: the `retryAfterMs` of the refused
 * decision from createLimiter, and `Retry-After: 1` on the 503 of rateLimit.
 */
export const CLOSED_RETRY_AFTER_MS = 1000

const FAIL_MODE_EXPECTED = "'open', 'closed' or { fallback: store }"

/** The zod shape of `failMode` and `storeTimeout`, for the options of createLimiter and of rateLimit. */
export const failureOptionsShape = {
  failMode: z
    .union([z.literal('open'), z.literal('closed'), z.strictObject({ fallback: storeSchema })], {
      error: FAIL_MODE_EXPECTED,
    })
    .default(FAILURE_DEFAULTS.failMode),
  storeTimeout: duration().prefault(FAILURE_DEFAULTS.storeTimeout),
}

/** The options a remote store took before the limiter decided failures, and where each went. */
const MOVED: readonly (readonly [option: string, where: string])[] = [
  [
    'failMode',
    "left out: what a request gets when the store cannot answer is the limiter's `failMode` (rateLimit({ store, failMode }) or createLimiter({ store, failMode }))",
  ],
  [
    'fallback',
    "left out: the fallback store is the limiter's `failMode: { fallback: store }` (on rateLimit or createLimiter)",
  ],
  [
    'timeoutMs',
    "left out: the store's calls are bounded by the limiter's `storeTimeout` (rateLimit({ store, storeTimeout: '500ms' }) or createLimiter)",
  ],
]

/**
 * Refuse the options a remote store no longer takes (`failMode`, `fallback`, `timeoutMs`), naming where each
 * went, so that no configuration silently changes meaning. `where` is the store (`'RedisStore'`).
 *
 * @example refuseMovedOptions(options, 'RedisStore') // throws for { client, failMode: 'closed' }
 */
export function refuseMovedOptions(options: unknown, where: string): void {
  if (typeof options !== 'object' || options === null) return
  for (const [option, moved] of MOVED) {
    if (Object.hasOwn(options, option)) {
      const value = (options as Record<string, unknown>)[option]
      throw new RateLimitConfigError('ERR_FLOODGATE_OPTION_MOVED', `${where}.${option}`, value, moved)
    }
  }
}

/** The decision when failing open: allowed, as a fresh key would be (even a cost above the limit). */
function openDecision(algorithm: Algorithm, cost: number, peek: boolean): SourcedDecision {
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

/** The decision when failing closed: refused, to be tried again in {@link CLOSED_RETRY_AFTER_MS}. */
function closedDecision(algorithm: Algorithm): SourcedDecision {
  return {
    allowed: false,
    limit: algorithm.limit,
    remaining: 0,
    resetMs: CLOSED_RETRY_AFTER_MS,
    retryAfterMs: CLOSED_RETRY_AFTER_MS,
    delayMs: 0,
    policy: '',
    source: 'fail-closed',
  }
}

const dropped = (): void => {}

function tagged(decision: Decision): SourcedDecision {
  const out = decision as SourcedDecision
  out.source = 'fallback'
  return out
}

/** The parsed `failMode` and `storeTimeout` (ms) of a limiter, with what it counts its decisions on. */
export interface FailureOptions {
  readonly failMode: FailMode
  readonly storeTimeout: number
  /** Where each decision the policy takes is counted (`floodgate_fail_mode_total`). */
  readonly metrics?: MetricsSink | undefined
}

/** One limiter's failure policy, compiled when the limiter is created. */
export interface FailurePolicy {
  readonly mode: 'open' | 'closed' | 'fallback'
  /** The store that decides while the limiter's store cannot (`failMode: { fallback }`). */
  readonly fallback: Store | undefined
  /** Bound an answer of the limiter's store by `storeTimeout` (as is, when the store bounds its own calls). */
  bound<T>(answer: Promise<T>): Promise<T>
  /** Bound an answer of the fallback store the same way. */
  boundFallback<T>(answer: Promise<T>): Promise<T>
  /** Count one decision the policy took (`floodgate_fail_mode_total{mode}`). */
  count(): void
  /**
   * The decision of one consume (or peek) the store could not answer. Never rejects: a fallback store that
   * fails too lets the request through, as `'open'` would.
   */
  decide(
    operation: 'consume' | 'peek',
    item: ConsumeItem,
    now: number | undefined,
  ): Awaitable<SourcedDecision>
  /**
   * A refund the store could not make: given to the fallback store, else dropped (the store reported it).
   * Never rejects: a fallback that fails too drops it.
   */
  refund(item: ConsumeItem, now: number | undefined): Promise<void>
}

/**
 * Bound a store's answers by `timeoutMs`. A store that bounds its own calls (`answerWithin`: the RedisStore,
 * the PostgresStore, the SyncedStore; they also fail fast while their backend is down) is given the bound and
 * its answers are taken as they are; any other store's promise is raced against a timer that never keeps the
 * process alive, and past it rejects with `ERR_FLOODGATE_STORE_TIMEOUT`.
 */
export function storeBound(store: Store, timeoutMs: number): <T>(answer: Promise<T>) => Promise<T> {
  if (store.answerWithin !== undefined) {
    store.answerWithin(timeoutMs)
    return (answer) => answer
  }
  const message = `The store did not answer within ${timeoutMs} ms`
  return <T>(answer: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new RateLimitRequestError('ERR_FLOODGATE_STORE_TIMEOUT', message))
      }, timeoutMs)
      ;(timer as { unref?: () => void }).unref?.()
      answer.then(
        (value) => {
          clearTimeout(timer)
          resolve(value)
        },
        (error) => {
          clearTimeout(timer)
          reject(error)
        },
      )
    })
}

/**
 * Compile a limiter's failure policy over `store`, once. The store is told its bound now (see
 * {@link storeBound}); the fallback store, when there is one, too.
 *
 * @example
 * const failure = compileFailurePolicy(store, { failMode: { fallback: new MemoryStore() }, storeTimeout: 500 })
 * const decision = await failure.decide('consume', { algorithm, key, cost: 1 }, undefined) // source: 'fallback'
 */
export function compileFailurePolicy(store: Store, options: FailureOptions): FailurePolicy {
  const { failMode, storeTimeout } = options
  const fallback = typeof failMode === 'object' ? failMode.fallback : undefined
  const mode = fallback !== undefined ? 'fallback' : (failMode as 'open' | 'closed')
  const counter = options.metrics?.counter(METRICS.failMode, { mode })
  const bound = storeBound(store, storeTimeout)
  const boundFallback = fallback === undefined ? bound : storeBound(fallback, storeTimeout)
  const count = () => {
    try {
      counter?.add(1)
    } catch {
      // ignored: a sink's failure is not the request's
    }
  }
  /** The fallback's decision; a fallback that fails too lets the request through, as `'open'` would. */
  const onFallback = (operation: 'consume' | 'peek', item: ConsumeItem, now: number | undefined) => {
    const { algorithm, key, cost } = item
    const open = () => openDecision(algorithm, cost, operation === 'peek')
    let decided: Awaitable<Decision>
    try {
      decided =
        operation === 'peek'
          ? fallback!.peek(algorithm, key, cost, now)
          : fallback!.consume(algorithm, key, cost, now)
    } catch {
      return open()
    }
    return decided instanceof Promise ? boundFallback(decided).then(tagged, open) : tagged(decided)
  }
  return {
    mode,
    fallback,
    bound,
    boundFallback,
    count,
    decide(operation, item, now) {
      count()
      if (mode === 'open') return openDecision(item.algorithm, item.cost, operation === 'peek')
      if (mode === 'closed') return closedDecision(item.algorithm)
      return onFallback(operation, item, now)
    },
    refund(item, now) {
      if (fallback === undefined) return Promise.resolve()
      try {
        const refunded = fallback.refund(item.algorithm, item.key, item.cost, now)
        return refunded instanceof Promise ? boundFallback(refunded).catch(dropped) : Promise.resolve()
      } catch {
        return Promise.resolve()
      }
    },
  }
}
