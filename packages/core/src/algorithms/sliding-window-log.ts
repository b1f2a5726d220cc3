import type { Algorithm } from '../types.js'
import { decide, NEVER } from './decide.js'
import { algorithmId } from './id.js'
import { parseWindowOptions, type WindowOptions } from './options.js'

/**
 * Sliding window log: one entry per admitted unit; a request passes when fewer than `limit` entries lie in
 * the rolling window that ends now. Exact for every rolling window, at O(limit) memory per key.
 *
 * State: `[head, e0 ... e(limit-1)]`, a ring of the expiry times (`admittedAt + window`) of the last `limit`
 * units, oldest at `head`. An entry is live while its expiry is after now; zeros are long expired. Costs
 * are whole entries: a fractional cost is rounded up.
 *
 * @example slidingWindowLog({ limit: 100, window: '1m' })
 */
export function slidingWindowLog(options: WindowOptions): Algorithm {
  const { limit, windowMs } = parseWindowOptions(options, 'slidingWindowLog')

  const entry = (s: Float64Array, at: number, head: number, i: number) => s[at + 1 + ((head + i) % limit)]!

  /** How many entries, oldest first, have expired by `now` (the ring is sorted, so binary search). */
  const expiredCount = (s: Float64Array, at: number, head: number, now: number) => {
    let lo = 0
    let hi = limit
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (entry(s, at, head, mid) <= now) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  const evaluate = (s: Float64Array, at: number, now: number, rawCost: number, commit: boolean) => {
    const cost = Math.ceil(rawCost)
    const head = s[at]!
    const free = expiredCount(s, at, head, now)
    const newest = entry(s, at, head, limit - 1)
    if (cost <= free) {
      if (commit) {
        const expiry = now + windowMs
        for (let i = 0; i < cost; i++) s[at + 1 + ((head + i) % limit)] = expiry
        s[at] = (head + cost) % limit
        return decide(true, limit, free - cost, windowMs, 0, 0)
      }
      return decide(true, limit, free, newest > now ? newest - now : 0, 0, 0)
    }
    // The cost-th oldest entry must expire first; a cost above the limit never passes (the log holds `limit`).
    const retryAfterMs = cost > limit ? NEVER : entry(s, at, head, cost - 1) - now
    return decide(false, limit, free, newest > now ? newest - now : 0, retryAfterMs, 0)
  }

  return {
    kind: 'sliding-window-log',
    limit,
    windowMs,
    stateSize: limit + 1,
    params: { limit, windowMs },
    id: algorithmId('sliding-window-log', { limit, windowMs }),
    consume: (s, at, now, cost) => evaluate(s, at, now, cost, true),
    peek: (s, at, now, cost) => evaluate(s, at, now, cost, false),
    refund(s, at, _now, rawCost) {
      // The newest entries become the oldest, zeroed: the ring stays sorted.
      const cost = Math.min(Math.ceil(rawCost), limit)
      const head = (s[at]! - cost + limit) % limit
      for (let i = 0; i < cost; i++) s[at + 1 + ((head + i) % limit)] = 0
      s[at] = head
    },
    charge(s, at, now, rawCost) {
      // min(cost, limit) entries at now, over the oldest (live or not): the ring holds `limit`, and the entries
      // it forgets are older than the ones written, so every later wait is the one an unbounded log would give.
      const cost = Math.min(Math.ceil(rawCost), limit)
      const head = s[at]!
      const expiry = now + windowMs
      for (let i = 0; i < cost; i++) s[at + 1 + ((head + i) % limit)] = expiry
      s[at] = (head + cost) % limit
    },
    expiresAt: (s, at) => entry(s, at, s[at]!, limit - 1),
  }
}
