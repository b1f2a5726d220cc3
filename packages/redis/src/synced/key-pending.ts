import { WindowDeltas } from './window-deltas.js'

/** Where a key keeps the units of its latest pending window: its slab, next to its view (`NUMBER.PENDING`). */
export interface LatestPending {
  pendingUnits: number
}

/**
 * The units one key admitted locally and has not sent yet: those of the latest window on the key's slab
 * (`latest.pendingUnits`, for the window `start`; a decision adds to them there), older ones in `before`.
 */
export class KeyPending {
  private readonly before = new WindowDeltas()
  /** The window of the latest pending units (NaN: none). */
  start = Number.NaN

  constructor(private readonly latest: LatestPending) {}

  /** Pending units of the window starting at `start`. */
  at(start: number): number {
    return start === this.start ? this.latest.pendingUnits : this.before.at(start)
  }

  get empty(): boolean {
    return this.latest.pendingUnits === 0 && this.before.empty
  }

  /** Add units, counted in the window starting at `start`; a later window becomes the latest. */
  add(start: number, amount: number): void {
    const latest = this.latest
    if (start === this.start) latest.pendingUnits += amount
    else if (start > this.start || Number.isNaN(this.start)) {
      if (latest.pendingUnits !== 0) this.before.add(this.start, latest.pendingUnits)
      this.start = start
      latest.pendingUnits = amount
    } else {
      this.before.add(start, amount)
    }
  }

  /** Move every pending unit into `deltas` (a sync takes them): none is pending after. */
  takeInto(deltas: WindowDeltas): void {
    deltas.addAll(this.before)
    deltas.add(this.start, this.latest.pendingUnits)
    this.before.clear()
    this.start = Number.NaN
    this.latest.pendingUnits = 0
  }

  /** Call `apply(start, amount)` for each window with pending units, the older first. */
  forEach(apply: (start: number, amount: number) => void): void {
    this.before.forEach(apply)
    if (this.latest.pendingUnits !== 0) apply(this.start, this.latest.pendingUnits)
  }
}
