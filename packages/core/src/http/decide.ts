import { boundDelays, boundOne, boundsDelay } from '../algorithms/bounded-delay.js'
import { consumeItems } from '../consume-all.js'
import type { FailurePolicy } from '../failure-policy.js'
import type { Awaitable, ConsumeItem, Decision, Store } from '../types.js'
import { RateLimitRequestError } from './errors.js'
import type { RequestState, Step } from './identify.js'
import type { Outcome } from './outcome.js'
import type { Reporter } from './report.js'
import type { RequestInfo } from './request-info.js'

// The second stage of a request: its items go to the store, in one call for all of its policies (all or
// nothing). When the store cannot answer (it throws, rejects, or passes `storeTimeout`), the limiter's
// `failMode` decides here, and only here: the fallback store decides the same items, or the request is let
// through undecided (`'open'`), or answered 503 (`'closed'`). A store never decides that itself.

/** What the decide stage gives a request the store could not decide, by `failMode`. */
export interface FailureAnswers<N> {
  /** `'open'` (and a dry run): the request goes on, undecided. */
  undecided(error: RateLimitRequestError): Outcome
  /** `'closed'`: 503 with `Retry-After`. */
  unavailable(error: RateLimitRequestError): Outcome
  /** The report of a failure on the request (`onError`, or a warning once per code). */
  report: Reporter<N>
}

/** The decide stage: its step, and the failure path a plan's gate shares. */
export interface Decide<N> {
  readonly step: Step<N>
  /**
   * The store could not answer and nothing else will decide: the failure is reported and counted, and
   * `failMode` answers (open, or a fallback store that failed too: the request goes on; closed: 503).
   */
  failed(error: unknown, info: RequestInfo<N>): Outcome
}

/** Compile the decide stage of one limiter, over its store and its failure policy. */
export function compileDecide<N>(parts: {
  store: Store
  failure: FailurePolicy
  clock: (() => number) | undefined
  dryRun: boolean
  answers: FailureAnswers<N>
}): Decide<N> {
  const { store, failure, clock, dryRun, answers } = parts
  const { fallback, bound, boundFallback } = failure
  const closed = failure.mode === 'closed'

  function decideStep(state: RequestState<N>): Outcome | undefined | Promise<Outcome | undefined> {
    let result: Awaitable<Decision | Decision[]>
    try {
      result = decideOnStore(store, state.items, state.set.order, clock?.())
    } catch (error) {
      return storeFailed(error, state)
    }
    if (result instanceof Promise) return decidedLater(bound(result), state)
    state.decided = result
    return undefined
  }

  function decidedLater(
    result: Promise<Decision | Decision[]>,
    state: RequestState<N>,
  ): Promise<Outcome | undefined> {
    return result.then(
      (decided) => {
        state.decided = decided
        return undefined
      },
      (error) => storeFailed(error, state),
    )
  }

  /** The store could not answer: the fallback store decides the same items, or `failMode` answers. */
  function storeFailed(
    error: unknown,
    state: RequestState<N>,
  ): Outcome | undefined | Promise<Outcome | undefined> {
    const { info } = state
    if (fallback === undefined) return failed(error, info)
    answers.report(reasonOf(error), info)
    failure.count()
    let result: Awaitable<Decision | Decision[]>
    try {
      result = decideOnStore(fallback, state.items, state.set.order, clock?.())
    } catch (failedToo) {
      return failed(failedToo, info)
    }
    if (!(result instanceof Promise)) {
      state.decided = result
      return undefined
    }
    return boundFallback(result).then(
      (decided) => {
        state.decided = decided
        return undefined
      },
      (failedToo) => failed(failedToo, info),
    )
  }

  function failed(error: unknown, info: RequestInfo<N>): Outcome {
    const reason = reasonOf(error)
    answers.report(reason, info)
    if (failure.mode !== 'fallback') failure.count()
    return closed && !dryRun ? answers.unavailable(reason) : answers.undecided(reason)
  }

  return { step: decideStep, failed }
}

/** What a store failure is reported as: its own request error (a timeout), or `ERR_FLOODGATE_STORE_FAILED`. */
function reasonOf(error: unknown): RateLimitRequestError {
  if (error instanceof RateLimitRequestError) return error
  const message = error instanceof Error ? error.message : String(error)
  return new RateLimitRequestError('ERR_FLOODGATE_STORE_FAILED', `The store failed: ${message}`, {
    cause: error,
  })
}

/**
 * Decide one request's items on the store, in the order of its policies: a single consume, or all of them
 * as one (`consumeAll`, atomic where the store can). Free items (cost 0) are peeked: counted as nothing, but
 * their decisions still give headers. `order` is the consumption order (narrowest policy first) for stores
 * that cannot decide all at once. Synchronous when the store is. A shaping bound (`maxDelay`) refuses a
 * request that would wait longer, and what it spent is given back. An item with a `ban` goes to `consumeAll`
 * even alone: the store checks and counts the ban in the same call.
 */
export function decideOnStore(
  store: Store,
  items: readonly ConsumeItem[],
  order: readonly number[] | undefined,
  now: number | undefined,
): Awaitable<Decision | Decision[]> {
  if (items.length === 1) {
    const item = items[0]!
    const decided =
      item.cost === 0
        ? store.peek(item.algorithm, item.key, 0, now)
        : item.ban === undefined
          ? store.consume(item.algorithm, item.key, item.cost, now)
          : firstOf(store.consumeAll!(items, now))
    return boundOne(store, item, decided, now)
  }
  const decided = decideMany(store, items, order, now)
  if (!boundsDelay(items)) return decided
  return decided instanceof Promise
    ? decided.then((ds) => boundDelays(store, items, ds, now))
    : boundDelays(store, items, decided, now)
}

/** The one decision of a lone item's `consumeAll`. */
function firstOf(decided: Awaitable<Decision[]>): Awaitable<Decision> {
  return decided instanceof Promise ? decided.then((ds) => ds[0]!) : decided[0]!
}

/** Whether every item costs something (none is a free peek): the common case, decided with no reordering. */
function allCharged(items: readonly ConsumeItem[]): boolean {
  for (let i = 0; i < items.length; i++) if (items[i]!.cost === 0) return false
  return true
}

function decideMany(
  store: Store,
  items: readonly ConsumeItem[],
  order: readonly number[] | undefined,
  now: number | undefined,
): Awaitable<Decision[]> {
  if (order === undefined && allCharged(items)) {
    return store.consumeAll ? store.consumeAll(items, now) : consumeItems(store, items, now)
  }
  const sequence = order ?? items.map((_, i) => i)
  const charged = sequence.filter((i) => items[i]!.cost > 0)
  const free = sequence.filter((i) => items[i]!.cost === 0)
  const chargedItems = charged.map((i) => items[i]!)
  const decided =
    chargedItems.length === 0
      ? []
      : store.consumeAll
        ? store.consumeAll(chargedItems, now)
        : consumeItems(store, chargedItems, now)
  const peeked = free.map((i) => store.peek(items[i]!.algorithm, items[i]!.key, 0, now))
  const place = (ds: readonly Decision[], ps: readonly Decision[]): Decision[] => {
    const out: Decision[] = new Array(items.length)
    for (let j = 0; j < charged.length; j++) out[charged[j]!] = ds[j]!
    for (let j = 0; j < free.length; j++) out[free[j]!] = ps[j]!
    return out
  }
  if (decided instanceof Promise || peeked.some((p) => p instanceof Promise)) {
    return Promise.all([decided, Promise.all(peeked)]).then(([ds, ps]) => place(ds, ps))
  }
  return place(decided as Decision[], peeked as Decision[])
}
