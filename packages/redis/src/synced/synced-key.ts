import type { Algorithm } from '@floodgate/core'
import type { ViewSlab } from './view-slab.js'
import { WindowDeltas } from './window-deltas.js'
import type { WindowKind } from './window-kinds.js'

/**
 * The numbers a decision reads besides the view, kept in the slab right after it (offsets from the view's
 * end): one place in memory for a decision to read, where fields of the key holding times would each be a
 * number of its own elsewhere in the heap. See {@link SyncedKey.budget}.
 */
const BUDGET = 0
const BUDGET_START = 1
const BUDGET_END = 2
const PENDING_START = 3
/** How many numbers a key keeps in the slab after its view. */
export const KEY_NUMBERS = 4

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
  // The fields a decision reads come first, so that they share the fewest cache lines.
  /** Where its view is in `slab.data`; its budget's numbers follow it there, from `numbersAt`. */
  readonly at: number
  readonly numbersAt: number
  /**
   * Whether a read has landed: until then, decisions wait for one. A key used again after a pause is decided
   * from its last read (at most one allowance, as always) and read again at the next sync; waiting for a read
   * there would make a busy process slower the busier it gets.
   */
  wasRead = false
  /** Whether it is queued for the next sync. */
  queued = false
  budgetOnline = true
  budgetProcesses = 0
  pendingUnits = 0
  unacked = 0
  inflight: WindowDeltas | undefined
  readonly known: Float64Array
  readonly pendingBefore = new WindowDeltas()
  /** What a sync carries (reused: a key is in one sync at a time). */
  private readonly outgoing = new WindowDeltas()
  unackedStart = Number.NaN
  sinceSend = 0
  sinceSendStart = Number.NaN
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
    readonly slab: ViewSlab,
  ) {
    this.known = new Float64Array(kind.stateSize)
    this.at = slab.allocate()
    this.numbersAt = this.at + kind.stateSize
    const numbers = slab.data
    numbers[this.numbersAt + BUDGET_START] = Number.NaN
    numbers[this.numbersAt + BUDGET_END] = Number.NaN
    numbers[this.numbersAt + PENDING_START] = Number.NaN
  }

  /**
   * What the allowance still covers, as last computed, for decisions in the window [budgetStart, budgetEnd)
   * made online (`budgetOnline`) with `budgetProcesses` processes: a lower bound of the allowance left (it only
   * grows with time within a window), so a request it covers may be admitted at once; one it does not is
   * decided the long way. Anything that changes what the allowance is computed from resets it.
   */
  get budget(): number {
    return this.slab.data[this.numbersAt + BUDGET]!
  }

  get budgetStart(): number {
    return this.slab.data[this.numbersAt + BUDGET_START]!
  }

  private set budgetStart(start: number) {
    this.slab.data[this.numbersAt + BUDGET_START] = start
  }

  get budgetEnd(): number {
    return this.slab.data[this.numbersAt + BUDGET_END]!
  }

  /** The window of the latest pending units (`pendingUnits`); older ones are in `pendingBefore`. */
  get pendingStart(): number {
    return this.slab.data[this.numbersAt + PENDING_START]!
  }

  private set pendingStart(start: number) {
    this.slab.data[this.numbersAt + PENDING_START] = start
  }

  /**
   * Whether a request of `cost` at time `t`, decided `online` with `processes` processes, is covered by the
   * budget: the common case, read from one place.
   */
  covers(cost: number, t: number, online: boolean, processes: number): boolean {
    const numbers = this.slab.data
    const at = this.numbersAt
    return (
      cost <= numbers[at + BUDGET]! &&
      t >= numbers[at + BUDGET_START]! &&
      t < numbers[at + BUDGET_END]! &&
      online === this.budgetOnline &&
      processes === this.budgetProcesses
    )
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
    const numbers = this.slab.data
    numbers[this.numbersAt + BUDGET] = amount
    numbers[this.numbersAt + BUDGET_START] = start
    numbers[this.numbersAt + BUDGET_END] = start + this.windowMs
    this.budgetOnline = online
    this.budgetProcesses = processes
  }

  /** `amount` units admitted locally within the budget (its window is current): the common case, kept short. */
  admittedInBudget(amount: number): void {
    const numbers = this.slab.data
    const at = this.numbersAt
    const start = numbers[at + BUDGET_START]!
    numbers[at + BUDGET] = numbers[at + BUDGET]! - amount
    if (numbers[at + PENDING_START] === start) this.pendingUnits += amount
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
    const numbers = this.slab.data
    if (amount > 0 && start === this.budgetStart) numbers[this.numbersAt + BUDGET] = this.budget - amount
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
   * The sync in flight read the key's state back (`known` holds it now): it now knows what Redis holds.
   */
  synced(): void {
    this.budgetStart = Number.NaN
    this.inflight = undefined
    this.wasRead = true
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
