/** What the overshoot bound of a SyncedStore depends on. */
export interface OvershootBoundParts {
  /** The policy's limit per window. */
  limit: number
  /** The store's `exactWithin`. */
  exactWithin?: number
  /**
   * The most the whole fleet admits per ms, over any span of two to three sync gaps. Without it, the bound is
   * the one that holds whatever the traffic.
   */
  rate?: number
  /**
   * `D`: the longest time from one sync's send to the next sync's reply in any process (`syncEvery` plus up to two
   * round trips; `stats.longestSyncGapMs` measures it).
   */
  syncGapMs?: number
}

/**
 * The most a window's admitted total can exceed the limit with a SyncedStore whose allowances are shared by at
 * least as many processes as count the key (`processes`):
 *
 * ```
 * overshoot <= min( (1 - exactWithin) x limit,  2 x rate x D,  max(0, 3 x rate x D - exactWithin x limit) )
 * ```
 *
 * Every process is at most one allowance ahead of Redis, and an allowance is 1/P of what the total it read left
 * below `limit x (1 - exactWithin)`; decisions made by Redis never pass the limit. The proof is in
 * `docs/redis.md`. While Redis is unreachable the bound is the limit (`offline: 'share'`).
 *
 * @example overshootBound({ limit: 100, exactWithin: 0.5, rate: 0.4, syncGapMs: 60 }) // 22
 */
export function overshootBound(parts: OvershootBoundParts): number {
  const exact = parts.exactWithin ?? 0
  const anyTraffic = (1 - exact) * parts.limit
  if (parts.rate === undefined || parts.syncGapMs === undefined) return anyTraffic
  const inFlight = parts.rate * parts.syncGapMs
  return Math.min(anyTraffic, 2 * inFlight, Math.max(0, 3 * inFlight - exact * parts.limit))
}
