import { RateLimitConfigError } from '@floodgate/core'
import { normalizeCost } from '@floodgate/core/internal'
import type { Arrivals } from './traffic/types.js'
import { COST_EXPECTED, isCost } from './validate.js'

/**
 * A pattern's arrivals, checked once (a custom `Traffic` may break the rules): times finite, ascending, in
 * `[0, duration)` (later ones are dropped), key indices and costs valid.
 */
export function checkArrivals(arrivals: Arrivals, durationMs: number): Arrivals {
  const { at, keyIndex, keys } = arrivals
  let n = at.length
  while (n > 0 && at[n - 1]! >= durationMs) n--
  const fail = (i: number, expected: string) => {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      `simulate.traffic (request ${i})`,
      at[i],
      expected,
    )
  }
  if (keys.length === 0) fail(0, 'at least one key')
  let cost = arrivals.cost
  let normalized = true
  for (let i = 0; i < n; i++) {
    const t = at[i]!
    if (!(t >= 0) || (i > 0 && t < at[i - 1]!)) fail(i, 'arrival times that are finite, >= 0 and ascending')
    if (keyIndex && !(keyIndex[i]! < keys.length)) fail(i, 'a key index below the number of keys')
    if (cost && !isCost(cost[i])) fail(i, `a cost that is ${COST_EXPECTED}`)
    if (cost && normalized && normalizeCost(cost[i]!) !== cost[i]) normalized = false
  }
  // Costs as core's limiter hands them to a store: rounded up to 1/1024
  if (cost && !normalized) cost = cost.map(normalizeCost)
  if (n === at.length && cost === arrivals.cost) return arrivals
  return { at: at.subarray(0, n), keys, keyIndex: keyIndex?.subarray(0, n), cost: cost?.subarray(0, n) }
}
