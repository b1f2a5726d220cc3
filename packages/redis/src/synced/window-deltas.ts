/**
 * Units counted per window start and not yet in Redis, kept as four numbers at offset `at` of a buffer (a key's
 * ledger, see `LEDGER`). At most two windows matter (the current one and, for a sliding window counter, the one
 * before it), so two slots: B holds the latest window, A the one before; a start of NaN marks a free slot. A
 * delta for a window older than both is dropped, as Redis would drop it. Plain functions over the numbers: a key
 * keeps several of these side by side in one buffer, not one object each.
 */
export const DELTAS = {
  /** Slot A (older): its window start, and its units. */
  A_START: 0,
  A: 1,
  /** Slot B (latest): its window start, and its units. */
  B_START: 2,
  B: 3,
} as const
/** How many numbers one record of window deltas takes. */
export const DELTAS_WIDTH = 4

const { A_START, A, B_START, B } = DELTAS

/** Empty the record at `at`. */
export function clearDeltas(d: Float64Array, at: number): void {
  d[at + A_START] = Number.NaN
  d[at + A] = 0
  d[at + B_START] = Number.NaN
  d[at + B] = 0
}

/** Whether the record at `at` holds no units. */
export function deltasEmpty(d: Float64Array, at: number): boolean {
  return d[at + A] === 0 && d[at + B] === 0
}

/** Add `amount` units counted in the window starting at `start` to the record at `at`. */
export function addDelta(d: Float64Array, at: number, start: number, amount: number): void {
  if (amount === 0) return
  const bStart = d[at + B_START]!
  if (bStart === start) d[at + B] = d[at + B]! + amount
  else if (d[at + A_START] === start) d[at + A] = d[at + A]! + amount
  else if (Number.isNaN(bStart)) {
    d[at + B_START] = start
    d[at + B] = amount
  } else if (start > bStart) {
    d[at + A_START] = bStart
    d[at + A] = d[at + B]!
    d[at + B_START] = start
    d[at + B] = amount
  } else if (Number.isNaN(d[at + A_START]!) || start > d[at + A_START]!) {
    d[at + A_START] = start
    d[at + A] = amount
  }
  // Older than both slots: it no longer counts anywhere.
}

/** Add every unit of the record at `from` into the record at `at` (both in `d`). */
export function addAllDeltas(d: Float64Array, at: number, from: number): void {
  if (d[from + A] !== 0) addDelta(d, at, d[from + A_START]!, d[from + A]!)
  if (d[from + B] !== 0) addDelta(d, at, d[from + B_START]!, d[from + B]!)
}

/** Units of the record at `at` in the window starting at `start` (0 when neither slot holds it). */
export function deltaAt(d: Float64Array, at: number, start: number): number {
  return d[at + B_START] === start ? d[at + B]! : d[at + A_START] === start ? d[at + A]! : 0
}

/** The latest window the record at `at` has units in, or -Infinity. */
export function latestDeltaStart(d: Float64Array, at: number): number {
  let latest = Number.NEGATIVE_INFINITY
  if (d[at + A] !== 0 && d[at + A_START]! > latest) latest = d[at + A_START]!
  if (d[at + B] !== 0 && d[at + B_START]! > latest) latest = d[at + B_START]!
  return latest
}
