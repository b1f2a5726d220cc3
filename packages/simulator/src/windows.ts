import type { Arrivals } from './traffic/types.js'

/** Requests regrouped key by key (each key's in time order), with their times and costs in that order. */
interface KeyOrder {
  /** `order[q]` is the request at position `q` of the regrouped sequence. */
  readonly order: Uint32Array | undefined
  /** Where each key's group starts in the regrouped sequence (one more entry than keys). */
  readonly starts: Uint32Array
  readonly at: Float64Array
  readonly cost: Float64Array | undefined
}

/** Grouping is the same for every simulation of the same arrivals (compare runs two): computed once. */
const orders = new WeakMap<Arrivals, Map<number, KeyOrder>>()

function keyOrder(arrivals: Arrivals, n: number): KeyOrder {
  const { keyIndex, keys } = arrivals
  if (!keyIndex || keys.length === 1) {
    return { order: undefined, starts: Uint32Array.of(0, n), at: arrivals.at, cost: arrivals.cost }
  }
  let byLength = orders.get(arrivals)
  const cached = byLength?.get(n)
  if (cached) return cached
  const starts = new Uint32Array(keys.length + 1)
  for (let i = 0; i < n; i++) starts[keyIndex[i]! + 1]!++
  for (let k = 1; k < starts.length; k++) starts[k]! += starts[k - 1]!
  const next = starts.slice(0, -1)
  const order = new Uint32Array(n)
  for (let i = 0; i < n; i++) order[next[keyIndex[i]!]!++] = i
  const at = new Float64Array(n)
  for (let q = 0; q < n; q++) at[q] = arrivals.at[order[q]!]!
  let cost: Float64Array | undefined
  if (arrivals.cost) {
    cost = new Float64Array(n)
    for (let q = 0; q < n; q++) cost[q] = arrivals.cost[order[q]!]!
  }
  const result = { order, starts, at, cost }
  if (!byLength) {
    byLength = new Map()
    orders.set(arrivals, byLength)
  }
  byLength.set(n, result)
  return result
}

/**
 * Visit the first `n` requests key by key, each key's in time order, with the units that key had admitted in
 * the rolling window `(at - windowMs, at]` before this request (earlier requests of the same millisecond
 * included): the count an exact sliding log checks a request against. `visit` gets the request's index.
 */
export function scanWindows(
  arrivals: Arrivals,
  n: number,
  allowed: Uint8Array,
  windowMs: number,
  visit: (i: number, before: number, admitted: boolean) => void,
): void {
  const { order, starts, at, cost } = keyOrder(arrivals, n)
  let ok = allowed
  if (order) {
    ok = new Uint8Array(n)
    for (let q = 0; q < n; q++) ok[q] = allowed[order[q]!]!
  }
  for (let g = 0; g + 1 < starts.length; g++) {
    let left = starts[g]!
    let units = 0
    for (let q = starts[g]!; q < starts[g + 1]!; q++) {
      const from = at[q]! - windowMs
      for (; at[left]! <= from; left++) if (ok[left]) units -= cost ? cost[left]! : 1
      const admitted = ok[q] === 1
      visit(order ? order[q]! : q, units, admitted)
      if (admitted) units += cost ? cost[q]! : 1
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
  let bestIndex = -1
  const { cost } = arrivals
  scanWindows(arrivals, n, allowed, windowMs, (i, before, admitted) => {
    if (!admitted) return
    const units = before + (cost ? cost[i]! : 1)
    if (units > best) {
      best = units
      bestIndex = i
    }
  })
  const key = bestIndex < 0 ? 0 : (arrivals.keyIndex?.[bestIndex] ?? 0)
  return {
    units: best,
    windowMs,
    key: arrivals.keys[key] ?? '',
    at: bestIndex < 0 ? 0 : arrivals.at[bestIndex]!,
  }
}
