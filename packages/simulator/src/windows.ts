import type { Arrivals } from './traffic/types.js'

/** Request indices grouped by key (stable, so each group stays in time order), and where each group starts. */
function byKey(arrivals: Arrivals, n: number): { order: Uint32Array; starts: Uint32Array } {
  const keyIndex = arrivals.keyIndex!
  const starts = new Uint32Array(arrivals.keys.length + 1)
  for (let i = 0; i < n; i++) starts[keyIndex[i]! + 1]!++
  for (let k = 1; k < starts.length; k++) starts[k]! += starts[k - 1]!
  const next = starts.slice(0, -1)
  const order = new Uint32Array(n)
  for (let i = 0; i < n; i++) order[next[keyIndex[i]!]!++] = i
  return { order, starts }
}

/**
 * Visit the first `n` requests key by key, each key's in time order, with the units that key had admitted in
 * the rolling window `(at - windowMs, at]` before this request (earlier requests of the same millisecond
 * included): the count an exact sliding log checks a request against.
 */
export function scanWindows(
  arrivals: Arrivals,
  n: number,
  allowed: Uint8Array,
  windowMs: number,
  visit: (i: number, before: number) => void,
): void {
  const { at, cost } = arrivals
  const grouped = arrivals.keyIndex && arrivals.keys.length > 1 ? byKey(arrivals, n) : undefined
  const order = grouped?.order
  const starts = grouped?.starts ?? Uint32Array.of(0, n)
  for (let g = 0; g + 1 < starts.length; g++) {
    let left = starts[g]!
    let units = 0
    for (let q = starts[g]!; q < starts[g + 1]!; q++) {
      const i = order ? order[q]! : q
      const from = at[i]! - windowMs
      while (true) {
        const j = order ? order[left]! : left
        if (at[j]! > from) break
        if (allowed[j]) units -= cost ? cost[j]! : 1
        left++
      }
      visit(i, units)
      if (allowed[i]) units += cost ? cost[i]! : 1
    }
  }
}

/** The most units one key had admitted in any rolling window of `windowMs`, with the key and when. */
export function maxInWindow(
  arrivals: Arrivals,
  n: number,
  allowed: Uint8Array,
  windowMs: number,
): { units: number; windowMs: number; key: string; at: number } {
  let best = 0
  let bestAt = 0
  let bestKey = 0
  const { at, cost, keyIndex } = arrivals
  scanWindows(arrivals, n, allowed, windowMs, (i, before) => {
    if (!allowed[i]) return
    const units = before + (cost ? cost[i]! : 1)
    if (units > best) {
      best = units
      bestAt = at[i]!
      bestKey = keyIndex ? keyIndex[i]! : 0
    }
  })
  return { units: best, windowMs, key: arrivals.keys[bestKey] ?? '', at: bestAt }
}
