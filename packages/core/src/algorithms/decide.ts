import type { Decision } from '../types.js'

/**
 * Tolerance for float arithmetic in the time domain, in ms (1 µs). GCRA keeps an absolute timestamp plus
 * fractional emission intervals; at epoch magnitudes (1.7e12 ms) one rounding is up to 2.4e-4 ms, so
 * comparisons and roundings forgive that much. The other algorithms compute in exact integer arithmetic.
 */
export const EPSILON = 1e-3

/** Round a duration up to a whole ms, ignoring float noise below {@link EPSILON}; never negative. */
export function ceilMs(ms: number): number {
  return ms <= EPSILON ? 0 : Math.ceil(ms - EPSILON)
}

/** Round a count down to a whole unit, ignoring float noise; never negative. */
export function floorUnits(units: number): number {
  return units <= 0 ? 0 : Math.floor(units + EPSILON)
}

/**
 * The `retryAfterMs` of a request that can never pass: its cost is above the policy's limit (a window's
 * `limit`, a bucket's `capacity`, GCRA's `burst`), so no amount of waiting lets it through.
 */
export const NEVER = Number.POSITIVE_INFINITY

/** Build a decision; every algorithm makes its decisions here so they all share one shape. */
export function decide(
  allowed: boolean,
  limit: number,
  remaining: number,
  resetMs: number,
  retryAfterMs: number,
  delayMs: number,
): Decision {
  return { allowed, limit, remaining, resetMs, retryAfterMs, delayMs, policy: '' }
}
