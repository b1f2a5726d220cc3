import type { Algorithm } from '@floodgate/core'
import { KeyBudget } from './key-budget.js'
import { KeyFlight } from './key-flight.js'
import { KeyPending } from './key-pending.js'
import { KeySlab, NUMBER } from './key-slab.js'
import type { WindowDeltas } from './window-deltas.js'
import type { WindowKind } from './window-kinds.js'

/**
 * One key of one algorithm as a process sees it.
 *
 * - `known`: the key's state in Redis as last read, plus what this process admitted through Redis since.
 * - pending: units this process admitted locally and has not sent (`pending`, the latest window's on the slab:
 *   a decision adds to them); `inflight`: the units of the sync in flight (`flight`, with what Redis admitted
 *   behind it).
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
  private readonly pending = new KeyPending(this)
  private isRead = false
  private readonly flight = new KeyFlight()
  /** The budget of the window starting at `budgetStart` (NaN: none). */
  private readonly budget = new KeyBudget()
  /** Which sync calls it can go in (its Redis Cluster slot and its algorithm), once asked for. */
  callGroup: string | undefined
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

  /** Whether it is queued for the next sync (kept on the slab: a decision there queues a key that is not). */
  get queued(): boolean {
    return this.slab.data[this.numbersAt + NUMBER.QUEUED] === 1
  }

  set queued(queued: boolean) {
    this.slab.data[this.numbersAt + NUMBER.QUEUED] = queued ? 1 : 0
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

  /** Pending units of the latest pending window (see {@link KeyPending}), kept on the slab. */
  get pendingUnits(): number {
    return this.slab.data[this.numbersAt + NUMBER.PENDING]!
  }

  set pendingUnits(units: number) {
    this.slab.data[this.numbersAt + NUMBER.PENDING] = units
  }

  /** Units admitted locally in the window starting at `start` that no reply has acknowledged yet. */
  unackedAt(start: number): number {
    return this.pending.at(start) + (this.flight.units?.at(start) ?? 0)
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
      this.budget.madeFor(online, shares) &&
      cost <= this.budget.cap - this.unackedAt(start)
    )
  }

  /** The budget of the window starting at `start`: at most `cap` units unacknowledged (see {@link KeyBudget}). */
  setBudget(start: number, cap: number, online: boolean, shares: number): void {
    this.budgetStart = start
    this.budget.cap = cap
    this.budget.online = online
    this.budget.shares = shares
    this.refresh()
  }

  /** `amount` units admitted locally within the budget (its window is current). */
  admittedInBudget(amount: number): void {
    this.pending.add(this.budgetStart, amount)
    this.refresh()
  }

  /** Units admitted locally at window `start` (the view already counts them). */
  admitted(start: number, amount: number): void {
    if (start !== this.budgetStart) this.budgetStart = Number.NaN
    this.pending.add(start, amount)
    this.refresh()
  }

  /** Units given back locally at window `start` (the view already lost them): the budget is computed anew. */
  refunded(start: number, amount: number): void {
    this.budgetStart = Number.NaN
    this.pending.add(start, -amount)
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
    return this.pending.empty
  }

  /** A sync takes the pending units. */
  sent(): WindowDeltas {
    const deltas = this.flight.start()
    this.pending.takeInto(deltas)
    this.refresh()
    return deltas
  }

  /** The sync in flight read the key's state back (`known` holds it now): it now knows what Redis holds. */
  synced(): void {
    this.budgetStart = Number.NaN
    this.isRead = true
    // What Redis admitted behind the sync is not in what it read.
    this.flight.end((start, amount) => this.kind.merge(this.known, 0, start, amount, this.windowMs))
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
      this.pending.add(start, amount)
    })
    this.refresh()
  }

  /**
   * Set the numbers `decideCovered` works from: its cap on the pending units of the budget's window (the
   * budget's cap less what is in flight in that window), or -Infinity while a decision may not be made there
   * alone: not read, a budget made offline or divided by other shares than the slab's, or none. When the
   * budget's window is later than the latest pending one, that one's units become older pending ones first, so
   * that the budget's window is the pending one.
   */
  refresh(): void {
    const start = this.budgetStart
    let cap = Number.NEGATIVE_INFINITY
    if (this.isRead && this.budget.madeFor(true, this.slab.shares) && !Number.isNaN(start)) {
      if (Number.isNaN(this.pending.start) || start > this.pending.start) this.pending.add(start, 0)
      if (start === this.pending.start) cap = this.budget.cap - (this.flight.units?.at(start) ?? 0)
    }
    this.slab.data[this.numbersAt + NUMBER.CAP] = cap
  }

  private rebuildView(): void {
    const { kind, at } = this
    const view = this.slab.data
    view.set(this.known, at)
    this.pending.forEach((start, amount) => {
      kind.merge(view, at, start, amount, this.windowMs)
    })
  }
}
