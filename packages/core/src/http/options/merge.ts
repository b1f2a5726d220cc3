import type { RateLimitOptions } from './types.js'

const POLICY_OPTIONS = ['limit', 'window', 'algorithm', 'key', 'name', 'limits'] as const

/**
 * Per-route options over app-wide ones: the route's own policy (`limit`, `window`, `algorithm`, `key`,
 * `name` or `limits`) replaces the app's policy whole; every other option the route leaves out is the app's.
 *
 * @example mergeRateLimitOptions({ limit: 100, store }, { limit: 5, window: '1m' }) // { limit: 5, window: '1m', store }
 */
export function mergeRateLimitOptions<N>(
  base: RateLimitOptions<N>,
  route: RateLimitOptions<N>,
): RateLimitOptions<N> {
  const merged: Record<string, unknown> = { ...base }
  if (POLICY_OPTIONS.some((option) => route[option] !== undefined)) {
    for (const option of POLICY_OPTIONS) delete merged[option]
  }
  for (const [option, value] of Object.entries(route)) if (value !== undefined) merged[option] = value
  return merged as RateLimitOptions<N>
}
