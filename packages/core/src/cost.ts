/**
 * What one request spends. A cost is a finite number >= 0: 0 is a free request (counted as nothing, its
 * headers still sent); anything else is rounded up to a multiple of {@link COST_PRECISION}, 1/1024 of a
 * unit. A power of two keeps every sum of costs exact in floating point (a decimal step such as 0.001 would
 * drift: a thousand costs of 0.001 add up to more than 1), and rounding up means every request that costs
 * something spends at least 1/1024: a cost of `1e-300` cannot be free forever. Whole costs stay whole.
 */

/** The smallest unit a cost is counted in (1/1024, about 0.001): costs are rounded up to a multiple of it. */
export const COST_PRECISION = 1 / 1024

/** Whether a value is a valid cost: a finite number >= 0. */
export function isCost(cost: unknown): cost is number {
  return typeof cost === 'number' && cost >= 0 && cost < Number.POSITIVE_INFINITY
}

/**
 * A valid cost as the stores count it: 0 stays 0, whole numbers stay as they are, anything else is rounded
 * up to a multiple of {@link COST_PRECISION} (at least one).
 *
 * @example normalizeCost(0.25) // 0.25
 * @example normalizeCost(0.1) // 0.10009765625 (103/1024)
 * @example normalizeCost(1e-300) // 0.0009765625 (1/1024)
 */
export function normalizeCost(cost: number): number {
  if (cost === 0 || Number.isInteger(cost)) return cost
  return Math.max(1, Math.ceil(cost * 1024)) / 1024
}
