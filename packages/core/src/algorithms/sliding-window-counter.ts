import type { Algorithm } from '../types.js'
import { decide, NEVER } from './decide.js'
import { algorithmId } from './id.js'
import { parseWindowOptions, type WindowOptions } from './options.js'

/**
 * Sliding window counter: the counts of the current and the previous aligned window, the previous one
 * weighted by how much of it the rolling window still covers: `curr + prev * (1 - elapsed / window)`.
 * O(1) memory, close to the sliding log's accuracy; the default algorithm.
 *
 * A request of `cost` passes when the estimate after it stays within the limit
 * (`estimate + cost <= limit`), so the estimate never exceeds the limit. The arithmetic is done in
 * count x ms, which is exact for whole-ms clocks.
 *
 * State: `[windowStart, current, previous]`.
 *
 * @example slidingWindowCounter({ limit: 100, window: '1m' })
 */
export function slidingWindowCounter(options: WindowOptions): Algorithm {
  const { limit, windowMs: w } = parseWindowOptions(options, 'slidingWindowCounter')

  const evaluate = (s: Float64Array, at: number, now: number, cost: number, commit: boolean) => {
    const start = Math.floor(now / w) * w
    const stored = s[at]!
    let curr = 0
    let prev = 0
    if (stored === start) {
      curr = s[at + 1]!
      prev = s[at + 2]!
    } else if (stored === start - w) {
      prev = s[at + 1]!
    }
    const elapsed = now - start
    const prevWeighted = prev * (w - elapsed) // the previous window's share, times w
    const untilNext = start + w - now
    if ((curr + cost) * w + prevWeighted <= limit * w) {
      if (commit) {
        s[at] = start
        s[at + 1] = curr + cost
        s[at + 2] = prev
        curr += cost
      }
      const remaining = Math.floor((limit * w - curr * w - prevWeighted) / w)
      const resetMs = curr > 0 ? untilNext + w : prev > 0 ? untilNext : 0
      return decide(true, limit, Math.max(0, remaining), resetMs, 0, 0)
    }
    let retryAfterMs: number
    if (cost > limit) {
      retryAfterMs = NEVER // no window holds it
    } else if (curr + cost <= limit) {
      // Later in this window the previous window's weight has decayed enough.
      retryAfterMs = Math.ceil((prevWeighted - (limit - cost - curr) * w) / prev)
    } else {
      // Only in the next window, once the current count (then the previous one) has decayed enough.
      const wait = Math.ceil((w * (curr + cost - limit)) / curr)
      retryAfterMs = untilNext + wait
    }
    const remaining = Math.floor((limit * w - curr * w - prevWeighted) / w)
    const resetMs = curr > 0 ? untilNext + w : untilNext
    return decide(false, limit, Math.max(0, remaining), resetMs, retryAfterMs, 0)
  }

  return {
    kind: 'sliding-window-counter',
    limit,
    windowMs: w,
    stateSize: 3,
    params: { limit, windowMs: w },
    id: algorithmId('sliding-window-counter', { limit, windowMs: w }),
    consume: (s, at, now, cost) => evaluate(s, at, now, cost, true),
    peek: (s, at, now, cost) => evaluate(s, at, now, cost, false),
    refund(s, at, now, cost) {
      if (s[at] === Math.floor(now / w) * w) s[at + 1] = Math.max(0, s[at + 1]! - cost)
    },
    charge(s, at, now, cost) {
      // Into the current window, as a consume would write it; its count may go above the limit.
      const start = Math.floor(now / w) * w
      const stored = s[at]!
      const curr = stored === start ? s[at + 1]! : 0
      const prev = stored === start ? s[at + 2]! : stored === start - w ? s[at + 1]! : 0
      s[at] = start
      s[at + 1] = curr + cost
      s[at + 2] = prev
    },
    expiresAt(s, at) {
      if (s[at + 1]! > 0) return s[at]! + 2 * w
      if (s[at + 2]! > 0) return s[at]! + w
      return 0
    },
  }
}
