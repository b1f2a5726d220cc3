import type { Algorithm } from '@floodgate/core'
import type { ViewSlab } from './view-slab.js'
import { WindowDeltas } from './window-deltas.js'
import type { WindowKind } from './window-kinds.js'

/**
 * One key of one algorithm as a process sees it.
 *
 * - `known`: the key's state in Redis as last read, plus what this process admitted through Redis since.
 * - pending: units this process admitted locally and has not sent, those of the latest window on the key itself
 *   (`pendingStart`, `pendingUnits`: a decision adds to them), older ones in `pendingBefore`; `inflight`: the
 *   units of the sync in flight.
 * - the view = known + inflight + pending: what local decisions run the algorithm on, at offset `at` of its
 *   algorithm's slab (`slab.data`).
 * - `unacked`: units admitted locally (less those given back) since the sync whose reply was read last was
 *   sent: what the allowance granted by that reply covers. Counted per window (`unackedStart`).
 * - `sinceSend`: units admitted locally since the sync in flight was sent (not in what it reads back).
 */
export class SyncedKey {
  readonly known: Float64Array
  /** Where its view is in `slab.data`. */
  readonly at: number
  pendingStart = Number.NaN
  pendingUnits = 0
  readonly pendingBefore = new WindowDeltas()
  inflight: WindowDeltas | undefined
  /** What a sync carries (reused: a key is in one sync at a time). */
  private readonly outgoing = new WindowDeltas()
  /** When (local clock) the last read landed; -Infinity before the first. */
  readAt = Number.NEGATIVE_INFINITY
  unacked = 0
  unackedStart = Number.NaN
  sinceSend = 0
  sinceSendStart = Number.NaN
  /** Its Redis Cluster slot, once asked for. */
  slot: number | undefined
  /** Whether it is queued for the next sync. */
  queued = false
  /** Whether it is about to be read on its own (a new key). */
  reading = false
  /** Requests waiting for the key's first read. */
  waiters: (() => void)[] | undefined
  /** Set when the key was reset or forgotten: a reply still in flight no longer applies to it. */
  detached = false
  /**
   * What the allowance still covers, as last computed, for decisions in the window [budgetStart, budgetEnd)
   * made online (`budgetOnline`) with `budgetProcesses` processes: a lower bound of the allowance left (it only
   * grows with time within a window), so a request it covers may be admitted at once; one it does not is
   * decided the long way. Anything that changes what the allowance is computed from resets it.
   */
  budget = 0
  budgetStart = Number.NaN
  budgetEnd = Number.NaN
  budgetOnline = true
  budgetProcesses = 0

  constructor(
    readonly key: string,
    readonly rkey: string,
    readonly algorithm: Algorithm,
    readonly kind: WindowKind,
    readonly slab: ViewSlab,
  ) {
    this.known = new Float64Array(kind.stateSize)
    this.at = slab.allocate()
  }

  get windowMs(): number {
    return this.algorithm.windowMs
  }

  /** Units admitted locally at window `start` (the view already counts them). */
  admitted(start: number, amount: number): void {
    this.count(start, amount)
  }

  /** Units given back locally at window `start` (the view already lost them). */
  refunded(start: number, amount: number): void {
    this.count(start, -amount)
  }

  /** `amount` units of allowance left in the window starting at `start` (see {@link budget}). */
  setBudget(start: number, amount: number, online: boolean, processes: number): void {
    if (this.unackedStart !== start) {
      this.unackedStart = start
      this.unacked = 0
    }
    this.budget = amount
    this.budgetStart = start
    this.budgetEnd = start + this.windowMs
    this.budgetOnline = online
    this.budgetProcesses = processes
  }

  /** `amount` units admitted locally within the budget (its window is current): the common case, kept short. */
  admittedInBudget(amount: number): void {
    const start = this.budgetStart
    this.budget -= amount
    if (this.pendingStart === start) this.pendingUnits += amount
    else this.addPending(start, amount)
    this.unacked += amount // setBudget made the budget's window the unacknowledged one
    if (this.inflight) {
      if (this.sinceSendStart !== start) {
        this.sinceSendStart = start
        this.sinceSend = 0
      }
      this.sinceSend += amount
    }
  }

  private count(start: number, amount: number): void {
    if (amount > 0 && start === this.budgetStart) this.budget -= amount
    else this.budgetStart = Number.NaN
    this.addPending(start, amount)
    if (this.unackedStart !== start) {
      this.unackedStart = start
      this.unacked = 0
    }
    this.unacked += amount
    if (this.inflight) {
      if (this.sinceSendStart !== start) {
        this.sinceSendStart = start
        this.sinceSend = 0
      }
      this.sinceSend += amount
    }
  }

  /** Units admitted at window `start` through Redis (already in Redis: known, not pending). */
  admittedInRedis(start: number, amount: number): void {
    this.budgetStart = Number.NaN
    this.kind.merge(this.known, 0, start, amount, this.windowMs)
  }

  /** Units admitted since the last acknowledged send, in window `start`. */
  unackedAt(start: number): number {
    return this.unackedStart === start ? this.unacked : 0
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

  private forEachPending(apply: (start: number, amount: number) => void): void {
    this.pendingBefore.forEach(apply)
    if (this.pendingUnits !== 0) apply(this.pendingStart, this.pendingUnits)
  }

  /** A sync takes the pending units. */
  sent(): WindowDeltas {
    const deltas = this.outgoing
    deltas.clear()
    deltas.addAll(this.pendingBefore)
    deltas.add(this.pendingStart, this.pendingUnits)
    this.pendingBefore.clear()
    this.pendingStart = Number.NaN
    this.pendingUnits = 0
    this.inflight = deltas
    this.sinceSend = 0
    this.sinceSendStart = Number.NaN
    return deltas
  }

  /**
   * The sync in flight read the key's state back (`known` holds it now), landing at `at` (local clock): it now
   * knows what Redis holds.
   */
  synced(at: number): void {
    this.budgetStart = Number.NaN
    this.inflight = undefined
    this.readAt = at
    this.unacked = this.sinceSend
    this.unackedStart = this.sinceSendStart
    this.rebuildView()
  }

  /** The sync in flight failed: its units are pending again. */
  unsent(): void {
    this.inflight?.forEach((start, amount) => {
      this.addPending(start, amount)
    })
    this.inflight = undefined
  }

  private rebuildView(): void {
    const { kind, at } = this
    const view = this.slab.data
    view.set(this.known, at)
    this.forEachPending((start, amount) => {
      kind.merge(view, at, start, amount, this.windowMs)
    })
  }
}
