import type { RateLimitOptions, RouteTierOptions } from './types.js'

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
    delete merged.overrides // the app's policy's overrides go with it
  }
  for (const [option, value] of Object.entries(route)) if (value !== undefined) merged[option] = value
  return merged as RateLimitOptions<N>
}

/**
 * A route's own limit when the app has `tiers`: the route's `limit` and `window` (or `algorithm`) become
 * the route's innermost tier (it must be tighter than the tier it replaces, and every outer tier still
 * applies); the app's `limits` stay as they are; other options the route sets are its own. Without tiers,
 * {@link mergeRateLimitOptions}.
 *
 * @example routeRateLimitOptions({ tiers }, { limit: 10, window: '1s' }, ['GET /reports'])
 */
export function routeRateLimitOptions<N>(
  base: RateLimitOptions<N>,
  route: RateLimitOptions<N>,
  routeKeys: readonly string[],
): RateLimitOptions<N> {
  if (!base.tiers) return mergeRateLimitOptions(base, route)
  const { limit, window, algorithm, ...rest } = route
  const tier: RouteTierOptions | undefined = algorithm
    ? { algorithm }
    : limit !== undefined || window !== undefined
      ? { limit: limit as number, window: window as never }
      : undefined
  const merged: RateLimitOptions<N> = { ...base, ...rest }
  if (tier !== undefined) {
    merged.routes = { ...base.routes, ...Object.fromEntries(routeKeys.map((key) => [key, tier])) }
  }
  return merged
}
