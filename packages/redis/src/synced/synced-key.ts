import type { Algorithm } from '@floodgate/core'
import { KeyFlight } from './key-flight.js'
import { KeySlab, NUMBER } from './key-slab.js'
import { WindowDeltas } from './window-deltas.js'
import type { WindowKind } from './window-kinds.js'

/**
 * One key of one algorithm as a process sees it.
 *
 * - `known`: the key's state in Redis as last read, plus what this process admitted through Redis since.
 * - pending: units this process admitted locally and has not sent, those of the latest window on the key itself
 *   (`pendingStart`, `pendingUnits`: a decision adds to them), older ones in `pendingBefore`; `inflight`: the
 *   units of the sync in flight (`flight`, with what Redis admitted behind it).
 * - the view = known + inflight + pending: what local decisions run the algorithm on, at offset `at` of its
 *   algorithm's slab (`slab.data`).
 * - unacknowledged units (`unackedAt`): those admitted locally (less those given back) that no reply has
 *   acknowledged yet, the pending ones and those in flight: what the allowance granted by the last reply covers.
 *
 * A decision its budget covers is made on the slab alone (`decideCovered`); the numbers it needs are kept there
 * (`NUMBER`) and set again after every change here (`refresh`).
 */
export class SyncedKey {
  /** Where its view is in `slab.data`; its numbers (see `NUMBER`) follow it there. */
  at: number
  readonly known: Float64Array
  private readonly pendingBefore = new WindowDeltas()
  /** The window of the latest pending units (`pendingUnits`; NaN: none); older ones are in `pendingBefore`. */
  private pendingStart = Number.NaN
  private isRead = false
  private isQueued = false
  private readonly flight = new KeyFlight()
  /**
   * The budget: in the window starting at `budgetStart` (NaN: none), decided online or not (`budgetOnline`)
   * with allowances divided by `budgetShares`, at most `budgetCap` units admitted locally may be unacknowledged (the
   * allowance, as last computed: a lower bound of what it is later in the window, as it only grows with time
   * there). A request within it may be admitted at once; one beyond it is decided the long way. Anything that
   * changes what the allowance is computed from resets it.
   */
  private budgetCap = 0
  private budgetOnline = true
  private budgetShares = 0
  /** Its Redis Cluster slot, once asked for. */
  slot: number | undefined
  /** Whether it is about to be read on its own (a new key). */
  reading = false
  /** Requests waiting for the key's first read. */
  waiters: (() => void)[] | undefined
  /** Set when the key was reset or forgotten: a reply still in flight no longer applies to it. */
  detached = false

  constructor(
    readonly key: string,
    readonly rkey: string,
    readonly algorithm: Algorithm,
    readonly kind: WindowKind,
    public slab: KeySlab,
  ) {
    this.known = new Float64Array(kind.stateSize)
    this.at = slab.allocate()
    this.budgetStart = Number.NaN
    this.refresh()
  }

  /**
   * Move the view and numbers into a slab of its own, when the key is forgotten: its slot in the shared slab is
   * then free for another key, and whatever is still done to this one (a failed sync's units made pending
   * again, say) cannot write into that key's numbers.
   */
  moveToOwnSlab(): void {
    const own = new KeySlab(this.slab.stateSize, 1)
    const at = own.allocate()
    own.data.set(this.slab.data.subarray(this.at, this.at + own.width), at)
    this.slab = own
    this.at = at
  }

  /**
   * Whether a read has landed: until then, decisions wait for one. A key used again after a pause is decided
   * from its last read (at most one allowance, as always) and read again at the next sync; waiting for a read
   * there would make a busy process slower the busier it gets.
   */
  get wasRead(): boolean {
    return this.isRead
  }

  /** Whether it is queued for the next sync. */
  get queued(): boolean {
    return this.isQueued
  }

  set queued(queued: boolean) {
    this.isQueued = queued
    this.refresh()
  }

  /** The units of the sync in flight, if one is. */
  get inflight(): WindowDeltas | undefined {
    return this.flight.units
  }

  /** How many syncs have carried the key: the number of the one in flight, while one is. */
  get sends(): number {
    return this.flight.sends
  }

  /** Where its numbers (see `NUMBER`) are in `slab.data`: right after its view. */
  private get numbersAt(): number {
    return this.at + this.slab.stateSize
  }

  get windowMs(): number {
    return this.algorithm.windowMs
  }

  private get budgetStart(): number {
    return this.slab.data[this.numbersAt + NUMBER.START]!
  }

  private set budgetStart(start: number) {
    this.slab.data[this.numbersAt + NUMBER.START] = start
  }

  /** Pending units of the window `pendingStart`. */
  get pendingUnits(): number {
    return this.slab.data[this.numbersAt + NUMBER.PENDING]!
  }

  private set pendingUnits(units: number) {
    this.slab.data[this.numbersAt + NUMBER.PENDING] = units
  }

  /** Units admitted locally in the window starting at `start` that no reply has acknowledged yet. */
  unackedAt(start: number): number {
    const pending = start === this.pendingStart ? this.pendingUnits : this.pendingBefore.at(start)
    return pending + (this.flight.units?.at(start) ?? 0)
  }

  /**
   * Whether a request of `cost` at time `t`, decided `online` with allowances divided by `shares`, is covered by the
   * budget: what the budget's cap leaves of its window's unacknowledged units.
   */
  covers(cost: number, t: number, online: boolean, shares: number): boolean {
    const start = this.budgetStart
    return (
      t >= start &&
      t < start + this.windowMs &&
      online === this.budgetOnline &&
      shares === this.budgetShares &&
      cost <= this.budgetCap - this.unackedAt(start)
    )
  }

  /** The budget of the window starting at `start`: at most `cap` units unacknowledged (see {@link budgetCap}). */
  setBudget(start: number, cap: number, online: boolean, shares: number): void {
    this.budgetStart = start
    this.budgetCap = cap
    this.budgetOnline = online
    this.budgetShares = shares
    this.refresh()
  }

  /** `amount` units admitted locally within the budget (its window is current). */
  admittedInBudget(amount: number): void {
    this.addPending(this.budgetStart, amount)
    this.refresh()
  }

  /** Units admitted locally at window `start` (the view already counts them). */
  admitted(start: number, amount: number): void {
    if (start !== this.budgetStart) this.budgetStart = Number.NaN
    this.addPending(start, amount)
    this.refresh()
  }

  /** Units given back locally at window `start` (the view already lost them): the budget is computed anew. */
  refunded(start: number, amount: number): void {
    this.budgetStart = Number.NaN
    this.addPending(start, -amount)
    this.refresh()
  }

  /**
   * Units admitted at window `start` through Redis (already in Redis: known, not pending). `behind` is the
   * number of the sync that was in flight when the call was sent, if one was: Redis ran that sync first, so
   * its read lands without these units; if it has not landed yet, they are added to what it reads.
   */
  admittedInRedis(start: number, amount: number, behind: number | undefined): void {
    this.budgetStart = Number.NaN
    this.refresh()
    this.kind.merge(this.known, 0, start, amount, this.windowMs)
    this.flight.admittedBehind(start, amount, behind)
  }

  /** Whether it has no units to send. */
  get pendingEmpty(): boolean {
    return this.pendingUnits === 0 && this.pendingBefore.empty
  }

  /** Add units to send, counted in the window starting at `start`. */
  private addPending(start: number, amount: number): void {
    if (start === this.pendingStart) this.pendingUnits += amount
    else if (start > this.pendingStart || Number.isNaN(this.pendingStart)) {
      if (this.pendingUnits !== 0) this.pendingBefore.add(this.pendingStart, this.pendingUnits)
      this.pendingStart = start
      this.pendingUnits = amount
    } else {
      this.pendingBefore.add(start, amount)
    }
  }

  /** A sync takes the pending units. */
  sent(): WindowDeltas {
    const deltas = this.flight.start()
    deltas.addAll(this.pendingBefore)
    deltas.add(this.pendingStart, this.pendingUnits)
    this.pendingBefore.clear()
    this.pendingStart = Number.NaN
    this.pendingUnits = 0
    this.refresh()
    return deltas
  }

  /** The sync in flight read the key's state back (`known` holds it now): it now knows what Redis holds. */
  synced(): void {
    this.budgetStart = Number.NaN
    this.isRead = true
    // What Redis admitted behind the sync is not in what it read.
    this.flight.end((start, amount) => {
      this.kind.merge(this.known, 0, start, amount, this.windowMs)
    })
    this.rebuildView()
    this.refresh()
  }

  /** The sync in flight landed on a key forgotten meanwhile: its units are in Redis; what it read is not used. */
  landedForgotten(): void {
    this.flight.end()
    this.refresh()
  }

  /** The sync in flight failed: its units are pending again. */
  unsent(): void {
    const units = this.flight.units
    // What Redis admitted behind it is in `known` already, and no read replaces it.
    this.flight.end()
    units?.forEach((start, amount) => {
      this.addPending(start, amount)
    })
    this.refresh()
  }

  /**
   * Set the numbers `decideCovered` works from: its cap on the pending units of the budget's window (the
   * budget's cap less what is in flight in that window), or -Infinity while a decision may not be made there
   * alone: not read, not queued for the next sync (the first decision after a sync queues it), a budget made
   * offline or divided by other shares than the slab's, or none. When the budget's window is later
   * than the latest pending one, that one's units move to `pendingBefore` first, so that the budget's window is
   * the pending one.
   */
  refresh(): void {
    const start = this.budgetStart
    let cap = Number.NEGATIVE_INFINITY
    if (
      this.isRead &&
      this.isQueued &&
      this.budgetOnline &&
      this.budgetShares === this.slab.shares &&
      !Number.isNaN(start)
    ) {
      if (Number.isNaN(this.pendingStart) || start > this.pendingStart) this.addPending(start, 0)
      if (start === this.pendingStart) cap = this.budgetCap - (this.flight.units?.at(start) ?? 0)
    }
    this.slab.data[this.numbersAt + NUMBER.CAP] = cap
  }

  private rebuildView(): void {
    const { kind, at } = this
    const view = this.slab.data
    view.set(this.known, at)
    const merge = (start: number, amount: number) => kind.merge(view, at, start, amount, this.windowMs)
    this.pendingBefore.forEach(merge)
    if (this.pendingUnits !== 0) merge(this.pendingStart, this.pendingUnits)
  }
}
