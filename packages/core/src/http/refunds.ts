import { refundItems } from '../refund-items.js'
import type { Store } from '../types.js'
import type { Outcome, Releaser } from './outcome.js'

/**
 * Giving back what requests spent: when a later limiter on the same request refuses it (a refused request
 * spends nothing anywhere), when its response ends with a status `skipFailedRequests` or
 * `skipSuccessfulRequests` does not count, and, for a policy that holds leases (`concurrency`), always when its
 * response ends or its client leaves (each lease once: `complete` and `release` take the items off the outcome).
 */
export interface Refunds extends Releaser {
  /** Link this limiter's outcome to the earlier one's: a refusal gives the earlier spending back. */
  link(result: Outcome, previous: Outcome): Outcome
  /** Whether `complete` has work to do: adapters listen for the response's end only then. */
  readonly onResponse: boolean
  /** The response ended with `status` (0 when the connection closed first): refund when it does not count. */
  complete(outcome: Outcome, status: number): void
}

/**
 * Compile the refunds of one limiter. `report` receives what a store's refund threw or rejected with; a
 * refund never fails the request.
 */
export function compileRefunds(parts: {
  store: Store
  clock: (() => number) | undefined
  skipFailedRequests: boolean
  skipSuccessfulRequests: boolean
  report: (error: unknown) => void
  /**
   * Whether a policy holds leases (`concurrency`): its units are given back when the response ends or the
   * client leaves, whatever the status, so adapters always listen for the end.
   */
  leases?: boolean
  /** The `failMode` fallback store: leases it gave out are released there (a lease frees nothing elsewhere). */
  fallback?: Store | undefined
}): Refunds {
  const { store, clock, skipFailedRequests, skipSuccessfulRequests, report, leases, fallback } = parts

  const self: Refunds = {
    onResponse: skipFailedRequests || skipSuccessfulRequests || leases === true,
    release(first) {
      for (let o: Outcome | undefined = first; o !== undefined; o = o.previous) {
        if (o.settlement !== undefined) o.settlement.done = true // given back: never settled
        const items = o.items
        if (items === undefined) continue
        if (o.owner !== self) {
          o.owner?.release(o) // that limiter gives back its own spending and walks the rest of the chain
          return
        }
        o.items = undefined
        void refundItems({ store, items, now: clock?.(), report, fallback })
      }
    },
    link(result, previous) {
      // Skipped or undecided, this limiter adds nothing: the earlier outcome still speaks for the request.
      if (result.kind === 'pass' && result.decision === undefined) return previous
      if (result.kind === 'answer') self.release(previous)
      else result.previous = previous
      return result
    },
    complete(outcome, status) {
      const items = outcome.items
      if (items === undefined || outcome.owner !== self) return
      outcome.items = undefined
      const failed = status === 0 || status >= 400
      if (failed ? skipFailedRequests : skipSuccessfulRequests)
        void refundItems({ store, items, now: clock?.(), report, fallback })
      else if (leases) void refundItems({ store, items, now: clock?.(), report, fallback, leasesOnly: true })
    },
  }
  return self
}
