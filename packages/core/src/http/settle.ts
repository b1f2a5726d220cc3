import { isCost, normalizeCost } from '../cost.js'
import { describeValue, RateLimitConfigError } from '../errors.js'
import type { ConsumeItem, Store } from '../types.js'
import { anyPromise, callAppFunction, FunctionFailure, invalidCost } from './app-functions.js'
import { RateLimitRequestError } from './errors.js'
import type { RequestState } from './identify.js'
import type { SettleFunction } from './options/types.js'
import type { Outcome } from './outcome.js'
import type { Policy } from './policies.js'
import type { Reporter } from './report.js'
import type { RequestInfo } from './request-info.js'

// Settled costs: a request is charged an estimate up front (`cost`); once its response is done, the `settle`
// functions say what it actually cost (or the app says it, `req.rateLimit.settle(n)`, for a streamed response),
// and the difference is charged (`Store.charge`: the key may go over its limit, so that its next requests
// wait) or given back (`Store.refund`). Only when a policy settles: a limiter without `settle` has none of this.
//
// Which policies settle: a policy's own `settle`; else the top-level `settle` when the policy takes the
// top-level `cost` (it sets no `cost` of its own); else none (policies.ts). Once per request: whichever comes
// first (the app's explicit settle, or the response's end) settles it, and the other does nothing. A request
// refused up front, or refused by a later limiter (what it spent is given back), is never settled.

/** What a request that passed keeps for settling its cost. */
export interface Settlement {
  /** The limiter that made it. */
  readonly settler: Settler
  readonly info: RequestInfo<any>
  /** Every item of the request, in the order of its policies, with what it has been charged so far. */
  readonly items: ConsumeItem[]
  /** Per item, the index of its policy's function in `functions`, or -1 when it does not settle. */
  readonly settles: readonly number[]
  /** The settle functions of the request's set of policies. */
  readonly functions: readonly SettleFunction[]
  /** Whether it is settled (or was given back): a second settle does nothing. */
  done: boolean
}

/** The settling of one limiter. */
export interface Settler {
  /** Keep what a passed request needs to be settled (its items and which of them settle). */
  attach(outcome: Outcome, state: RequestState): Outcome
  /**
   * The response ended with `status` (0 when the client left first); `response` is the framework's response
   * object (Express `res`, Fastify `reply`, Koa `ctx`): call the settle functions and settle, unless the
   * request was settled already or its spending is given back whole (`skipFailedRequests`,
   * `skipSuccessfulRequests`). Then the refunds of those options, as without `settle`.
   */
  complete(outcome: Outcome, status: number, response: unknown): void
  /** Settle with a cost the app gives (`req.rateLimit.settle(n)`). */
  settle(outcome: Outcome, cost: unknown): void
}

/**
 * Throw a `RateLimitConfigError` when a limiter whose policies settle cannot: its store has no `charge`, or a
 * policy's algorithm has none.
 */
export function checkSettling(store: Store, settling: readonly Policy[], settleOption: unknown): void {
  if (settling.length === 0) return
  if (typeof store.charge !== 'function') {
    const name =
      store.constructor?.name && store.constructor.name !== 'Object' ? store.constructor.name : 'the store'
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      'rateLimit.settle',
      settleOption ?? settling[0]!.name,
      `used with a store that can charge a settled cost (one with \`charge\`: MemoryStore, RedisStore, PostgresStore); ${name} has none`,
      `Settled costs charge what a request cost above its estimate whatever the limit says, which ${name} cannot do: use another store, or charge the whole cost up front with \`cost\``,
    )
  }
  for (const policy of settling) {
    if (typeof policy.algorithm.charge !== 'function') {
      throw new RateLimitConfigError(
        'ERR_FLOODGATE_INVALID_OPTION',
        'rateLimit.settle',
        settleOption ?? policy.name,
        `used with policies whose algorithm can be charged; the algorithm of policy '${policy.name}' (${policy.algorithm.kind}) cannot`,
      )
    }
  }
}

/** Settle `outcome` and the outcomes before it on the same request with the app's `cost` (`req.rateLimit.settle(n)`). */
export function settleChain(outcome: Outcome, cost: unknown): void {
  for (let o: Outcome | undefined = outcome; o !== undefined; o = o.previous) {
    const settlement = o.settlement
    if (settlement !== undefined && !settlement.done) settlement.settler.settle(o, cost)
  }
}

/** Compile the settling of one limiter; only when one of its policies settles. */
export function compileSettler<N>(parts: {
  store: Store
  clock: (() => number) | undefined
  report: Reporter<N>
  /** Whether the response's `status` gives back the whole spending (`skipFailedRequests`, `skipSuccessfulRequests`). */
  givesBack: (status: number) => boolean
  /** The refunds of `skipFailedRequests` and `skipSuccessfulRequests` when the response ended. */
  refund: (outcome: Outcome, status: number) => void
}): Settler {
  const { store, clock, report, givesBack, refund } = parts

  /** Charge or give back the difference between what each settling item was charged and what it cost. */
  function apply(
    outcome: Outcome,
    settlement: Settlement,
    costOf: (index: number) => unknown,
    explicit: boolean,
  ) {
    const { items, settles, info } = settlement
    const now = clock?.()
    const reported: number[] = []
    for (let i = 0; i < items.length; i++) {
      const index = settles[i]!
      if (index < 0) continue
      const item = items[i]!
      const value = costOf(index)
      if (value instanceof FunctionFailure || !isCost(value)) {
        if (reported.includes(index)) continue
        reported.push(index)
        report(
          value instanceof FunctionFailure
            ? value.error
            : explicit
              ? invalidSettledCost(value, item.cost)
              : invalidCost('settle', value, item.cost),
          info,
        )
        continue
      }
      const actual = normalizeCost(value)
      const difference = actual - item.cost
      if (difference === 0) continue
      items[i] = { ...item, cost: actual }
      change(item, difference, now, info)
    }
    // What a refund (`skipFailedRequests`, `skipSuccessfulRequests`) gives back from now on: the actual costs.
    outcome.items = spent(items)
  }

  function change(item: ConsumeItem, difference: number, now: number | undefined, info: RequestInfo) {
    try {
      const done =
        difference > 0
          ? store.charge!(item.algorithm, item.key, difference, now)
          : store.refund(item.algorithm, item.key, -difference, now)
      if (done instanceof Promise) done.catch((error: unknown) => report(error, info as RequestInfo<N>))
    } catch (error) {
      report(error, info as RequestInfo<N>)
    }
  }

  const self: Settler = {
    attach(outcome, state) {
      // A pass that spent (a shadow refusal in dry run spent nothing, and has no owner).
      if (outcome.kind !== 'pass' || outcome.owner === undefined) return outcome
      const { policies, settleFunctions } = state.set
      if (settleFunctions.length === 0) return outcome
      const settles = new Array<number>(policies.length)
      for (let i = 0; i < policies.length; i++) settles[i] = policies[i]!.settleIndex
      outcome.settlement = {
        settler: self,
        info: state.info,
        // With the leases their decisions hold (`concurrency`): a refund of these items releases them.
        items: state.items.map((item, i) => {
          const lease = outcome.decisions[i]?.lease
          return lease === undefined ? item : { ...item, lease }
        }),
        settles,
        functions: settleFunctions,
        done: false,
      }
      return outcome
    },
    settle(outcome, cost) {
      const settlement = outcome.settlement
      if (settlement === undefined || settlement.done) return
      settlement.done = true
      apply(outcome, settlement, () => cost, true)
    },
    complete(outcome, status, response) {
      const settlement = outcome.settlement
      if (settlement === undefined || settlement.done || givesBack(status)) {
        if (settlement !== undefined) settlement.done = true
        refund(outcome, status)
        return
      }
      settlement.done = true
      const { functions, info } = settlement
      const values = functions.map((fn) =>
        callAppFunction('settle', () => fn(response, info.native), info as RequestInfo<N>),
      )
      if (!anyPromise(values)) {
        apply(outcome, settlement, (index) => values[index], false)
        refund(outcome, status)
        return
      }
      void Promise.all(values).then((settled) => {
        apply(outcome, settlement, (index) => settled[index], false)
        refund(outcome, status)
      })
    },
  }
  return self
}

/** The items that cost something (to give back on a refund); `undefined` when none does. */
function spent(items: ConsumeItem[]): ConsumeItem[] | undefined {
  const charged = items.filter((item) => item.cost > 0)
  return charged.length === 0 ? undefined : charged
}

/** A cost `req.rateLimit.settle()` was given that is not a cost, as an error for `onError`. */
function invalidSettledCost(value: unknown, charged: number): RateLimitRequestError {
  return new RateLimitRequestError(
    'ERR_FLOODGATE_INVALID_COST',
    `\`rateLimit.settle()\` was given ${describeValue(value)}; expected a finite number >= 0. The request stays charged ${charged}.`,
    { option: 'settle' },
  )
}
