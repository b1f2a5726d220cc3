import type { Algorithm } from '../types.js'
import { decide, NEVER } from './decide.js'
import { algorithmId } from './id.js'
import { parseWindowOptions, type WindowOptions } from './options.js'

/**
 * Fixed window: one counter per window, windows aligned to the clock (12:00:00-12:00:59).
 * O(1) memory and time. A client can pass up to twice the limit across a boundary: `limit` at the end
 * of one window and `limit` again at the start of the next.
 *
 * State: `[windowStart, count]`.
 *
 * @example fixedWindow({ limit: 100, window: '1m' })
 */
export function fixedWindow(options: WindowOptions): Algorithm {
  const { limit, windowMs } = parseWindowOptions(options, 'fixedWindow')

  const countAt = (s: Float64Array, at: number, start: number) => (s[at] === start ? s[at + 1]! : 0)

  const evaluate = (s: Float64Array, at: number, now: number, cost: number, commit: boolean) => {
    const start = Math.floor(now / windowMs) * windowMs
    const count = countAt(s, at, start)
    const untilNext = start + windowMs - now
    if (count + cost <= limit) {
      if (commit) {
        s[at] = start
        s[at + 1] = count + cost
      }
      const used = commit ? count + cost : count
      return decide(true, limit, Math.floor(limit - used), used > 0 ? untilNext : 0, 0, 0)
    }
    // A cost above the limit never passes: no window holds it.
    const retryAfterMs = cost > limit ? NEVER : untilNext
    // Never below 0: a count merged from other processes (a SyncedStore) can pass the limit.
    return decide(
      false,
      limit,
      Math.max(0, Math.floor(limit - count)),
      count > 0 ? untilNext : 0,
      retryAfterMs,
      0,
    )
  }

  return {
    kind: 'fixed-window',
    limit,
    windowMs,
    stateSize: 2,
    params: { limit, windowMs },
    id: algorithmId('fixed-window', { limit, windowMs }),
    consume: (s, at, now, cost) => evaluate(s, at, now, cost, true),
    peek: (s, at, now, cost) => evaluate(s, at, now, cost, false),
    refund(s, at, now, cost) {
      const start = Math.floor(now / windowMs) * windowMs
      if (s[at] === start) s[at + 1] = Math.max(0, s[at + 1]! - cost)
    },
    charge(s, at, now, cost) {
      // The current window only: its count may go above the limit until the window ends.
      const start = Math.floor(now / windowMs) * windowMs
      s[at + 1] = countAt(s, at, start) + cost
      s[at] = start
    },
    expiresAt: (s, at) => (s[at + 1]! > 0 ? s[at]! + windowMs : 0),
  }
}
