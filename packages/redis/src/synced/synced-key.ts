import type { Algorithm } from '@floodgate/core'
import { type BudgetTerms, budgetCovers, budgetStart, dropBudget, writeBudget } from './key-budget.js'
import {
  addPending,
  carriedIn,
  LEDGER,
  LEDGER_WIDTH,
  land,
  mergeDeltas,
  pendingAt,
  pendingEmpty,
  putBack,
  startLedger,
  takeOff,
} from './key-ledger.js'
import { latestUnits, rebuildView, type SlabKey, setLatestUnits, setRoom } from './key-room.js'
import { KeySlab } from './key-slab.js'
import { addDelta } from './window-deltas.js'
import type { WindowKind } from './window-kinds.js'

const { KNOWN, CARRIED, BEHIND, FLYING, SENDS } = LEDGER

/**
 * One key of one algorithm as a process sees it. Its numbers are kept in its slab, at offset `at` of `slab.data`
 * (the view and what a decision on the slab alone needs, `NUMBER`) and at `ledgerAt` of `slab.ledger` (the rest,
 * `LEDGER`); the object holds what is not a number.
 *
 * - known: the key's state in Redis as last read, plus what this process admitted through Redis since.
 * - pending: units this process admitted locally and has not sent (see `latestUnits` for the latest window's);
 *   in flight: the units of the sync in flight (with what Redis admitted behind it).
 * - the view = known + in flight + pending: what local decisions run the algorithm on.
 * - unacknowledged units (`unackedAt`): those admitted locally (less those given back) that no reply has
 *   acknowledged yet, the pending ones and those in flight: what the allowance granted by the last reply covers.
 * - the budget (`BudgetTerms`): what the allowance let it admit in a window. Anything that changes what the
 *   allowance is computed from drops it.
 *
 * A decision its budget covers is made on the slab alone (`decideCovered`); the numbers it needs are set again
 * after every change here (`refresh`).
 */
export class SyncedKey implements SlabKey {
  /** Where its view is in `slab.data`; its numbers (see `NUMBER`) follow it there. */
  at: number
  /** Where its numbers are in `slab.ledger` (see `LEDGER`). */
  ledgerAt: number
  private isRead = false
  private isQueued = false
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
    this.at = slab.allocate()
    this.ledgerAt = slab.ledgerOf(this.at)
    startLedger(slab.ledger, this.ledgerAt)
    this.refresh()
  }

  /**
   * Move its numbers into a slab of its own, when the key is forgotten: its slot in the shared slab is then free
   * for another key, and whatever is still done to this one (a failed sync's units made pending again, say)
   * cannot write into that key's numbers.
   */
  moveToOwnSlab(): void {
    const own = new KeySlab(this.slab.stateSize, 1)
    const at = own.allocate()
    own.data.set(this.slab.data.subarray(this.at, this.at + own.width), at)
    own.ledger.set(this.slab.ledger.subarray(this.ledgerAt, this.ledgerAt + LEDGER_WIDTH), own.ledgerOf(at))
    this.slab = own
    this.at = at
    this.ledgerAt = own.ledgerOf(at)
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

  /** Whether a sync carries it now. */
  get inFlight(): boolean {
    return this.slab.ledger[this.ledgerAt + FLYING] === 1
  }

  /** How many syncs have carried the key: the number of the one in flight, while one is. */
  get sends(): number {
    return this.slab.ledger[this.ledgerAt + SENDS]!
  }

  /** Its slab's ledger (see `LEDGER`). */
  get ledger(): Float64Array {
    return this.slab.ledger
  }

  /** Where the units of the sync in flight are in `ledger` (window deltas, see `DELTAS`). */
  get carriedAt(): number {
    return this.ledgerAt + CARRIED
  }

  get windowMs(): number {
    return this.algorithm.windowMs
  }

  /** Units admitted locally in the window starting at `start` that no reply has acknowledged yet. */
  unackedAt(start: number): number {
    return pendingAt(this, start) + carriedIn(this, start)
  }

  /** Whether the budget covers a request of `cost` at `t`, decided `online` with allowances divided by `shares`. */
  covers(cost: number, t: number, online: boolean, shares: number): boolean {
    return budgetCovers(this, { cost, t, online, shares, unacked: this.unackedAt(budgetStart(this)) })
  }

  /** A new budget (see `BudgetTerms`). */
  setBudget(terms: BudgetTerms): void {
    writeBudget(this, terms)
    this.refresh()
  }

  /**
   * Move the view into the window starting at `start` (the window of a decision being made) when it is older, so
   * that decisions there can be made on the slab alone before any admission has moved it (see `refresh`).
   */
  rollTo(start: number): void {
    if (!(this.slab.data[this.at]! < start)) return
    this.kind.roll(this.slab.data, this.at, start, this.windowMs)
    this.refresh()
  }

  /** `amount` units admitted locally within the budget (its window is current). */
  admittedInBudget(amount: number): void {
    addPending(this, budgetStart(this), amount)
    this.refresh()
  }

  /** Units admitted locally at window `start` (the view already counts them). */
  admitted(start: number, amount: number): void {
    if (start !== budgetStart(this)) dropBudget(this)
    addPending(this, start, amount)
    this.refresh()
  }

  /** Units given back locally at window `start` (the view already lost them): the budget is computed anew. */
  refunded(start: number, amount: number): void {
    dropBudget(this)
    addPending(this, start, -amount)
    this.refresh()
  }

  /**
   * Units admitted at window `start` through Redis (already in Redis: known, not pending). `behind` is the
   * number of the sync that was in flight when the call was sent, if one was: Redis ran that sync first, so
   * its read lands without these units; if it has not landed yet, they are added to what it reads.
   */
  admittedInRedis(start: number, amount: number, behind: number | undefined): void {
    dropBudget(this)
    this.refresh()
    const { ledger } = this.slab
    this.kind.merge(ledger, this.ledgerAt + KNOWN, start, amount, this.windowMs)
    if (behind !== undefined && this.inFlight && behind === this.sends) {
      addDelta(ledger, this.ledgerAt + BEHIND, start, amount)
    }
  }

  /** Whether it has no units to send. */
  get pendingEmpty(): boolean {
    return pendingEmpty(this)
  }

  /** A sync takes the pending units: they are its units in flight now (at `carriedAt`). */
  sent(): void {
    takeOff(this)
    this.refresh()
  }

  /** The sync in flight read the key's state back (into `KNOWN`): it now knows what Redis holds. */
  synced(): void {
    dropBudget(this)
    this.isRead = true
    // What Redis admitted behind the sync is not in what it read.
    const { ledger, ledgerAt } = this
    mergeDeltas(this.kind, this.windowMs, ledger, ledgerAt + KNOWN, ledger, ledgerAt + BEHIND)
    land(this)
    rebuildView(this)
    this.refresh()
  }

  /** The sync in flight landed on a key forgotten meanwhile: its units are in Redis; what it read is not used. */
  landedForgotten(): void {
    land(this)
    this.refresh()
  }

  /** The sync in flight failed: its units are pending again. */
  unsent(): void {
    // What Redis admitted behind it is in `KNOWN` already, and no read replaces it.
    putBack(this)
    land(this)
    this.refresh()
  }

  /**
   * Set the room `decideCovered` works from (see `setRoom`); no decision is made on the slab alone before the key
   * is read, or while it is not queued for the next sync (the first decision after a sync queues it).
   */
  refresh(): void {
    setRoom(this, this.isRead && this.isQueued)
  }

  /** Pending units of the latest pending window (see `latestUnits`). */
  get pendingUnits(): number {
    return latestUnits(this)
  }

  set pendingUnits(units: number) {
    setLatestUnits(this, units)
  }
}
