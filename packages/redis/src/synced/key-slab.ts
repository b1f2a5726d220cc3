import type { Algorithm, Decision } from '@floodgate/core'
import { LEDGER_WIDTH } from './key-ledger.js'
import type { SyncedKey } from './synced-key.js'

/**
 * The number a key keeps in the slab after its view (its offset from the view's end): what a decision covered by
 * the key's budget reads and writes, next to the view it decides on, so that such a decision touches one place in
 * memory and not the key's object. One number: the budget's window is the view's own (the first number of either
 * window state is its window's start), as the room is set only while they are the same. See {@link SyncedKey}
 * and {@link decideCovered}.
 */
export const NUMBER = {
  /**
   * The units decisions on the slab alone may still admit in the view's window (the budget's cap less the
   * window's unacknowledged units), or -Infinity: no decision on the slab alone. An admission there takes its
   * cost off it.
   */
  ROOM: 0,
} as const
/** How many numbers a key keeps in the slab after its view. */
export const KEY_NUMBERS = 1

/**
 * The keys of one algorithm in one process: their views and numbers in one flat buffer (as the MemoryStore
 * keeps its states), `width` numbers each, and an index from key to its offset there. A decision reads one Map
 * and one place in the buffer; the key's object (`entryAt`) is for everything else. Slots of forgotten keys are
 * reused.
 */
export class KeySlab {
  data: Float64Array
  /** Each key's numbers for its syncs (see `LEDGER`), `LEDGER_WIDTH` per slot, slots in the order of `data`'s. */
  ledger: Float64Array
  /** Each key's offset in `data`. */
  readonly index = new Map<string, number>()
  private readonly entries: (SyncedKey | undefined)[] = []
  private readonly free: number[] = []
  private used = 0
  /** What the allowances of every decision on the slab alone are divided by (see `SyncedKey.refresh`). */
  shares = 0

  constructor(
    readonly stateSize: number,
    /** How many keys it has room for before it grows. */
    capacity = 64,
    readonly width = stateSize + KEY_NUMBERS,
  ) {
    this.data = new Float64Array(width * capacity)
    this.ledger = new Float64Array(LEDGER_WIDTH * capacity)
  }

  get size(): number {
    return this.index.size
  }

  /** A slot, zeroed in `data` and in `ledger`; returns its offset in `data` (see `ledgerOf`). */
  allocate(): number {
    const at = this.free.pop() ?? this.width * this.used++
    if (at + this.width > this.data.length) {
      const grown = new Float64Array(this.data.length * 2)
      grown.set(this.data)
      this.data = grown
      const ledger = new Float64Array(this.ledger.length * 2)
      ledger.set(this.ledger)
      this.ledger = ledger
    }
    this.data.fill(0, at, at + this.width)
    const l = this.ledgerOf(at)
    this.ledger.fill(0, l, l + LEDGER_WIDTH)
    return at
  }

  /** The offset in `ledger` of the slot at offset `at` of `data`. */
  ledgerOf(at: number): number {
    return (at / this.width) * LEDGER_WIDTH
  }

  /** Index `entry` (its slot allocated) under its key. */
  add(entry: SyncedKey): void {
    this.index.set(entry.key, entry.at)
    this.entries[entry.at / this.width] = entry
  }

  /** The key at offset `at`. */
  entryAt(at: number): SyncedKey {
    return this.entries[at / this.width]!
  }

  /** The entry of `key`, if held. */
  find(key: string): SyncedKey | undefined {
    const at = this.index.get(key)
    return at === undefined ? undefined : this.entries[at / this.width]
  }

  /** Every key held, in the order they came. */
  *values(): IterableIterator<SyncedKey> {
    for (const at of this.index.values()) yield this.entries[at / this.width]!
  }

  /**
   * Divide allowances by `shares` from now on: every key's numbers are set again (a budget made with another
   * number no longer lets a decision be made on the slab alone).
   */
  setShares(shares: number): void {
    this.shares = shares
    for (const entry of this.values()) entry.refresh()
  }

  /** Put `entry` last in the order `values` gives (the order keys are looked at to be forgotten). */
  toBack(entry: SyncedKey): void {
    if (this.index.get(entry.key) !== entry.at) return
    this.index.delete(entry.key)
    this.index.set(entry.key, entry.at)
  }

  /** Forget `entry`; returns whether it was held. */
  remove(entry: SyncedKey): boolean {
    if (this.index.get(entry.key) !== entry.at) return false
    this.index.delete(entry.key)
    this.entries[entry.at / this.width] = undefined
    this.free.push(entry.at)
    return true
  }
}

/**
 * Decide a request of `cost` at time `t` on the key at offset `at` of `slab` when its budget covers it and it
 * may be decided on the slab alone (see `SyncedKey.refresh`): `t` in the view's window (its state's first number
 * is the window's start), which the room is for, at least `edge` ms from either end of it (see
 * `LocalDecider.decide`), and `cost` within the room. The algorithm decides on the view, and an admission takes
 * its cost off the room. Undefined when the long way is needed.
 */
export function decideCovered(
  slab: KeySlab,
  at: number,
  algorithm: Algorithm,
  cost: number,
  t: number,
  edge: number,
): Decision | undefined {
  const data = slab.data
  const n = at + slab.stateSize + NUMBER.ROOM
  const into = t - data[at]!
  const room = data[n]!
  if (!(into >= edge && into < algorithm.windowMs - edge && cost <= room)) return undefined
  const decision = algorithm.consume(data, at, t, cost)
  if (decision.allowed) data[n] = room - cost
  return decision
}
