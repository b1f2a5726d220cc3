/**
 * Requests in time order, as columns: request `i` arrives at `at[i]` ms, from key `keys[keyIndex[i]]`, with
 * cost `cost[i]`. Columns keep a million requests in a few typed arrays instead of a million objects.
 */
export interface Arrivals {
  /** Arrival times in ms, ascending. */
  readonly at: Float64Array
  /** The distinct keys, in order of first appearance. */
  readonly keys: readonly string[]
  /** Each request's index into `keys`; absent when every request comes from `keys[0]`. */
  readonly keyIndex: Uint32Array | undefined
  /** Each request's cost; absent when every request costs 1. */
  readonly cost: Float64Array | undefined
}

/**
 * A traffic pattern: a recipe for arrivals over any duration. Generators (`steady`, `burst`, `poisson`, ...)
 * return one; `simulate` asks it for the arrivals in `[0, durationMs)`. The same traffic with the same
 * duration always gives the same arrivals (random patterns take a seed).
 */
export interface Traffic {
  /** What the pattern is, for legends and tables: `'steady 10 per 1s'`. */
  readonly label: string
  /** The requests that arrive in `[0, durationMs)`, in time order. */
  arrivals(durationMs: number): Arrivals
}

/** The key a generator's requests come from unless told otherwise. */
export const DEFAULT_KEY = 'client'
