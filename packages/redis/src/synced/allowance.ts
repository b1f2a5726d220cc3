import type { SyncedKey } from './synced-key.js'

/** Float noise forgiven when a cost is compared with an allowance (costs are multiples of 1/1024). */
const CAP_EPSILON = 1e-9

/** What an allowance depends on besides the key. */
export interface AllowanceParts {
  /** Redis is reachable (and the key was read): the allowance; else the offline share. */
  online: boolean
  exactWithin: number
  offline: 'share' | 'limit'
  /** What the allowance is divided by: the processes sharing it (Infinity: no allowance, Redis decides). */
  shares: number
}

/**
 * The units `entry` may have admitted locally, unacknowledged, in the window starting at `start`: its
 * allowance, 1/P of what the others' units (the view less its own unacknowledged ones) leave below
 * `limit x (1 - exactWithin)`; offline, its share of what they leave below the limit (or no cap: `'limit'`).
 */
export function allowanceOf(entry: SyncedKey, t: number, start: number, parts: AllowanceParts): number {
  if (!parts.online && parts.offline === 'limit') return Number.POSITIVE_INFINITY
  const limit = entry.algorithm.limit
  const ceiling = parts.online ? limit * (1 - parts.exactWithin) : limit
  const others = entry.kind.used(entry.slab.data, entry.at, t, entry.windowMs) - entry.unackedAt(start)
  return (ceiling - others) / parts.shares + CAP_EPSILON
}

/**
 * Whether a request of `cost` on `entry` is near the limit, where Redis decides it: the total it knows would
 * pass `limit x (1 - exactWithin)`, or no allowance (`allowance`, the whole of it) can hold the request.
 */
export function nearLimit(
  entry: SyncedKey,
  t: number,
  cost: number,
  allowance: number,
  exactWithin: number,
): boolean {
  if (allowance < cost) return true
  const used = entry.kind.used(entry.slab.data, entry.at, t, entry.windowMs)
  return used + cost > entry.algorithm.limit * (1 - exactWithin) + CAP_EPSILON
}
