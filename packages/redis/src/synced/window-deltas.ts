/**
 * Units counted per window start and not yet in Redis. At most two windows matter (the current one and, for a
 * sliding window counter, the one before it), so two slots: B holds the latest window, A the one before. A
 * delta for a window older than both is dropped, as Redis would drop it. Plain number fields: a decision adds
 * to it, so it is kept one pointer away from its key.
 */
export class WindowDeltas {
  /** Slot A (older): its window start (NaN: free) and units. */
  aStart = Number.NaN
  a = 0
  /** Slot B (latest): its window start (NaN: free) and units. */
  bStart = Number.NaN
  b = 0

  get empty(): boolean {
    return this.a === 0 && this.b === 0
  }

  add(start: number, amount: number): void {
    if (amount === 0) return
    if (this.bStart === start) this.b += amount
    else if (this.aStart === start) this.a += amount
    else if (Number.isNaN(this.bStart)) {
      this.bStart = start
      this.b = amount
    } else if (start > this.bStart) {
      this.aStart = this.bStart
      this.a = this.b
      this.bStart = start
      this.b = amount
    } else if (Number.isNaN(this.aStart) || start > this.aStart) {
      this.aStart = start
      this.a = amount
    }
    // Older than both slots: it no longer counts anywhere.
  }

  /** Add every delta of `other` into this one. */
  addAll(other: WindowDeltas): void {
    if (other.a !== 0) this.add(other.aStart, other.a)
    if (other.b !== 0) this.add(other.bStart, other.b)
  }

  /** Units in the window starting at `start` (0 when neither slot holds it). */
  at(start: number): number {
    return this.bStart === start ? this.b : this.aStart === start ? this.a : 0
  }

  /** Call `apply(start, amount)` for each non-zero delta, the older window first. */
  forEach(apply: (start: number, amount: number) => void): void {
    if (this.a !== 0) apply(this.aStart, this.a)
    if (this.b !== 0) apply(this.bStart, this.b)
  }

  clear(): void {
    this.aStart = Number.NaN
    this.a = 0
    this.bStart = Number.NaN
    this.b = 0
  }
}
