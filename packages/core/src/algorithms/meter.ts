import { decide, NEVER } from './decide.js'

/**
 * The meter both buckets share. `level` is how full the bucket is, kept scaled by `interval` (units x ms) so
 * that whole-number parameters and whole-ms clocks give exact answers; it drains by `rate` units per
 * `interval`, that is by `rate` scaled units per ms. State: `[level x interval, lastUpdate]`.
 */
export interface Meter {
  capacity: number
  rate: number
  intervalMs: number
  /** Shape: admitted requests wait for the units ahead of them to drain (`delayMs`). */
  shape: boolean
}

export function drained(s: Float64Array, at: number, now: number, m: Meter): number {
  const level = s[at]!
  if (level <= 0) return 0
  const elapsed = now - s[at + 1]!
  return elapsed > 0 ? Math.max(0, level - elapsed * m.rate) : level
}

export function meterDecision(
  s: Float64Array,
  at: number,
  now: number,
  cost: number,
  commit: boolean,
  m: Meter,
) {
  const full = m.capacity * m.intervalMs
  const level = drained(s, at, now, m)
  const next = level + cost * m.intervalMs
  if (next <= full) {
    if (commit) {
      s[at] = next
      s[at + 1] = now
    }
    const after = commit ? next : level
    const delayMs = m.shape ? Math.ceil(level / m.rate) : 0
    return decide(
      true,
      m.capacity,
      Math.floor((full - after) / m.intervalMs),
      Math.ceil(after / m.rate),
      0,
      delayMs,
    )
  }
  // A cost above the capacity never passes: even an empty bucket cannot hold it.
  const retryAfterMs = cost > m.capacity ? NEVER : Math.ceil((next - full) / m.rate)
  return decide(
    false,
    m.capacity,
    // Never below 0: a charged bucket (a settled cost) can hold more than its capacity.
    Math.max(0, Math.floor((full - level) / m.intervalMs)),
    Math.ceil(level / m.rate),
    retryAfterMs,
    0,
  )
}

export function meterRefund(s: Float64Array, at: number, now: number, cost: number, m: Meter): void {
  s[at] = Math.max(0, drained(s, at, now, m) - cost * m.intervalMs)
  s[at + 1] = now
}

/** Spend `cost` whatever the capacity: the level may go above it, a debt that drains at the rate. */
export function meterCharge(s: Float64Array, at: number, now: number, cost: number, m: Meter): void {
  s[at] = drained(s, at, now, m) + cost * m.intervalMs
  s[at + 1] = now
}

export function meterExpiresAt(s: Float64Array, at: number, m: Meter): number {
  const level = s[at]!
  return level > 0 ? s[at + 1]! + level / m.rate : 0
}
