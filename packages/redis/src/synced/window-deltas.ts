/**
 * Units counted per window start and not yet in Redis. At most two windows matter (the current one and, for a
 * sliding window counter, the one before it), so two slots: B holds the latest window, A the one before. A
 * delta for a window older than both is dropped, as Redis would drop it.
 */
export class WindowDeltas {
  /** `[startA, amountA, startB, amountB]`; a free slot has a NaN start. Both present: startA < startB. */
  readonly slots = Float64Array.of(Number.NaN, 0, Number.NaN, 0)

  get empty(): boolean {
    return this.slots[1] === 0 && this.slots[3] === 0
  }

  add(start: number, amount: number): void {
    const s = this.slots
    if (amount === 0) return
    if (s[2] === start) s[3] = s[3]! + amount
    else if (s[0] === start) s[1] = s[1]! + amount
    else if (Number.isNaN(s[2]!)) {
      s[2] = start
      s[3] = amount
    } else if (start > s[2]!) {
      s[0] = s[2]!
      s[1] = s[3]!
      s[2] = start
      s[3] = amount
    } else if (Number.isNaN(s[0]!) || start > s[0]!) {
      s[0] = start
      s[1] = amount
    }
    // Older than both slots: it no longer counts anywhere.
  }

  /** Add every delta of `other` into this one. */
  addAll(other: WindowDeltas): void {
    other.forEach((start, amount) => {
      this.add(start, amount)
    })
  }

  /** Call `apply(start, amount)` for each non-zero delta, the older window first. */
  forEach(apply: (start: number, amount: number) => void): void {
    const s = this.slots
    if (s[1] !== 0) apply(s[0]!, s[1]!)
    if (s[3] !== 0) apply(s[2]!, s[3]!)
  }

  clear(): void {
    this.slots.set([Number.NaN, 0, Number.NaN, 0])
  }
}
