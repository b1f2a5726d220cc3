import { WindowDeltas } from './window-deltas.js'

/**
 * The sync in flight of one key, if any: the units it carries, and the units Redis admitted for the key behind
 * it (decided through Redis after the sync was sent, so not in what its read brings back). A key is in one sync
 * at a time, and its deltas are reused from one sync to the next.
 */
export class KeyFlight {
  private readonly carried = new WindowDeltas()
  private readonly behind = new WindowDeltas()
  private flying = false
  private sent = 0

  /** How many syncs have carried the key: the number of the one in flight, while one is. */
  get sends(): number {
    return this.sent
  }

  /** The units of the sync in flight, if one is. */
  get units(): WindowDeltas | undefined {
    return this.flying ? this.carried : undefined
  }

  /** A sync takes off: returns its (empty) units, for the caller to fill. */
  start(): WindowDeltas {
    this.carried.clear()
    this.behind.clear()
    this.flying = true
    this.sent++
    return this.carried
  }

  /**
   * Units Redis admitted at window `start`, sent while sync number `behind` was in flight (undefined: none was):
   * kept for that sync's read when it is still the one in flight.
   */
  admittedBehind(start: number, amount: number, behind: number | undefined): void {
    if (behind !== undefined && this.flying && behind === this.sends) this.behind.add(start, amount)
  }

  /** The sync landed or failed; `apply` (a read landed) is given the units Redis admitted behind it. */
  end(apply?: (start: number, amount: number) => void): void {
    if (apply) this.behind.forEach(apply)
    this.behind.clear()
    this.flying = false
  }
}
