import { type Algorithm, RateLimitConfigError } from '@floodgate/core'
import { type SimulateOptions, type Simulation, simulate } from './simulate.js'
import type { Arrivals, Traffic } from './traffic/types.js'
import { scanWindows } from './windows.js'

/** Options of {@link compare}: those of `simulate`, with two algorithms. */
export interface CompareOptions extends Omit<SimulateOptions, 'algorithm'> {
  /**
   * The two algorithms to run side by side over the same requests.
   * @example [slidingWindowCounter({ limit: 100, window: '1m' }), slidingWindowLog({ limit: 100, window: '1m' })]
   */
  algorithms: readonly [Algorithm, Algorithm]
}

/** Two algorithms over one traffic pattern, request by request. */
export interface Comparison {
  readonly simulations: readonly [Simulation, Simulation]
  /** Requests the first algorithm admitted and the second refused. */
  readonly onlyFirst: number
  /** Requests the second algorithm admitted and the first refused. */
  readonly onlySecond: number
}

/** A traffic pattern that computes its arrivals once, so both runs see the very same requests. */
function once(traffic: Traffic): Traffic {
  let cached: { durationMs: number; arrivals: Arrivals } | undefined
  return {
    label: traffic.label,
    arrivals(durationMs) {
      if (cached?.durationMs !== durationMs) cached = { durationMs, arrivals: traffic.arrivals(durationMs) }
      return cached.arrivals
    },
  }
}

/**
 * Run two algorithms side by side over the same requests (each with its own state, as if each were the
 * only limiter) and count where they disagree, both ways.
 *
 * @example
 * const { onlyFirst, onlySecond } = compare({
 *   algorithms: [slidingWindowCounter({ limit: 100, window: '1m' }), slidingWindowLog({ limit: 100, window: '1m' })],
 *   traffic: poisson({ rate: 110, per: '1m', seed: 1, keys: 100 }),
 *   duration: '1h',
 * })
 */
export function compare(options: CompareOptions): Comparison {
  const { algorithms, ...rest } = options
  if (!Array.isArray(algorithms) || algorithms.length !== 2) {
    const expected = 'an array of two algorithms'
    throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', 'compare.algorithms', algorithms, expected)
  }
  const traffic = once(rest.traffic)
  const first = simulate({ ...rest, traffic, algorithm: algorithms[0] })
  const second = simulate({ ...rest, traffic, algorithm: algorithms[1] })
  const a = first.decisions.allowed
  const b = second.decisions.allowed
  let onlyFirst = 0
  let onlySecond = 0
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue
    if (a[i]) onlyFirst++
    else onlySecond++
  }
  return { simulations: [first, second], onlyFirst, onlySecond }
}

/** How a simulation's decisions fare against the exact rule, judged on what it actually admitted. */
export interface Judgement {
  /** Admitted requests that took their key above `limit` units in some rolling window. */
  readonly wronglyAdmitted: number
  /** Refused requests that the rolling window had room for. */
  readonly wronglyRefused: number
}

/**
 * Judge each decision of a simulation by the exact rule, "at most `limit` units in any rolling window of
 * `windowMs`" (the sliding log's rule), applied to the requests the algorithm itself had admitted before.
 * Unlike {@link compare}, an early mistake is not counted again in the decisions that follow from it.
 *
 * @example judge(simulate({ algorithm: slidingWindowCounter({ limit: 100, window: '1m' }), traffic, duration }))
 */
export function judge(simulation: Simulation, rule: { limit?: number; windowMs?: number } = {}): Judgement {
  const limit = rule.limit ?? simulation.algorithm.limit
  const windowMs = rule.windowMs ?? simulation.algorithm.windowMs
  const { arrivals, decisions } = simulation
  const allowed = decisions.allowed
  let wronglyAdmitted = 0
  let wronglyRefused = 0
  scanWindows(arrivals, allowed.length, allowed, windowMs, (i, before, admitted) => {
    const fits = before + (arrivals.cost ? arrivals.cost[i]! : 1) <= limit
    if (admitted && !fits) wronglyAdmitted++
    else if (!admitted && fits) wronglyRefused++
  })
  return { wronglyAdmitted, wronglyRefused }
}
