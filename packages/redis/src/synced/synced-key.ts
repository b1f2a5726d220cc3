import type { Algorithm } from '@floodgate/core'
import { WindowDeltas } from './window-deltas.js'
import type { WindowKind } from './window-kinds.js'

/**
 * One key of one algorithm as a process sees it.
 *
 * - `known`: the key's state in Redis as last read, plus what this process admitted through Redis since.
 * - `pending`: units this process admitted locally and has not sent; `inflight`: those of the sync in flight.
 * - `view` = known + inflight + pending: what local decisions run the algorithm on.
 * - `unacked`: units admitted locally (less those given back) since the sync whose reply was read last was
 *   sent: what the allowance granted by that reply covers. Counted per window (`unackedStart`).
 * - `sinceSend`: units admitted locally since the sync in flight was sent (not in what it reads back).
 */
export class SyncedKey {
  readonly known: Float64Array
  readonly view: Float64Array
  readonly pending = new WindowDeltas()
  inflight: WindowDeltas | undefined
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
  /** Requests waiting for the key's first read. */
  waiters: (() => void)[] | undefined
  /** Set when the key was reset or forgotten: a reply still in flight no longer applies to it. */
  detached = false

  constructor(
    readonly key: string,
    readonly rkey: string,
    readonly algorithm: Algorithm,
    readonly kind: WindowKind,
  ) {
    this.known = new Float64Array(kind.stateSize)
    this.view = new Float64Array(kind.stateSize)
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

  private count(start: number, amount: number): void {
    this.pending.add(start, amount)
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
    this.kind.merge(this.known, start, amount, this.windowMs)
  }

  /** Units admitted since the last acknowledged send, in window `start`. */
  unackedAt(start: number): number {
    return this.unackedStart === start ? this.unacked : 0
  }

  /** A sync takes the pending units. */
  sent(): WindowDeltas {
    const deltas = new WindowDeltas()
    deltas.addAll(this.pending)
    this.pending.clear()
    this.inflight = deltas
    this.sinceSend = 0
    this.sinceSendStart = Number.NaN
    return deltas
  }

  /** The sync in flight read `state` back (undefined: nothing stored), landing at `at` (local clock). */
  synced(state: Float64Array | undefined, at: number): void {
    if (state) this.known.set(state)
    else this.known.fill(0)
    this.inflight = undefined
    this.readAt = at
    this.unacked = this.sinceSend
    this.unackedStart = this.sinceSendStart
    this.rebuildView()
  }

  /** The sync in flight failed: its units are pending again. */
  unsent(): void {
    if (this.inflight) this.pending.addAll(this.inflight)
    this.inflight = undefined
  }

  private rebuildView(): void {
    const { view, kind } = this
    view.set(this.known)
    this.pending.forEach((start, amount) => {
      kind.merge(view, start, amount, this.windowMs)
    })
  }
}
