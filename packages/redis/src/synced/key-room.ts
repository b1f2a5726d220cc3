import { budgetCap, budgetMadeFor, budgetStart, roomUnder } from './key-budget.js'
import { addPending, carriedIn, LEDGER, type LedgerKey, mergeDeltas } from './key-ledger.js'
import { type KeySlab, NUMBER } from './key-slab.js'
import type { WindowKind } from './window-kinds.js'

/** A key as these functions see it: its numbers in the ledger and on the slab, after its view at `at`. */
export interface SlabKey extends LedgerKey {
  readonly slab: KeySlab
  readonly at: number
  readonly kind: WindowKind
  readonly windowMs: number
}

const roomAt = (key: SlabKey): number => key.at + key.slab.stateSize + NUMBER.ROOM

/**
 * Pending units of the latest pending window: those counted when the slab's room was last set
 * (`LEDGER.PENDING_UNITS`), and what decisions on the slab took off the room since.
 */
export function latestUnits(key: SlabKey): number {
  const { ledger, ledgerAt } = key
  const units = ledger[ledgerAt + LEDGER.PENDING_UNITS]!
  const set = ledger[ledgerAt + LEDGER.ROOM_SET]!
  return set === Number.NEGATIVE_INFINITY ? units : units + (set - key.slab.data[roomAt(key)]!)
}

/** Set the latest pending window's units; the room is unchanged until `setRoom`. */
export function setLatestUnits(key: SlabKey, units: number): void {
  const { ledger, ledgerAt } = key
  ledger[ledgerAt + LEDGER.PENDING_UNITS] = units
  ledger[ledgerAt + LEDGER.ROOM_SET] = key.slab.data[roomAt(key)]!
}

/**
 * Set the room `decideCovered` works from: what the budget's cap (less what is in flight in its window) leaves
 * the pending units of that window, or -Infinity while a decision may not be made on the slab alone: not
 * `eligible` (see `SyncedKey.refresh`), a budget made offline or divided by other shares than the slab's, none,
 * or one for another window than the view's (a decision on the slab alone checks the view's window). When the
 * budget's window is later than the latest pending one, that one's units become older pending ones first, so that
 * the budget's window is the pending one.
 */
export function setRoom(key: SlabKey, eligible: boolean): void {
  const start = budgetStart(key)
  const { ledger, ledgerAt } = key
  const { data, shares } = key.slab
  // Units counted from here on: those taken off the room so far become counted ones.
  setLatestUnits(key, latestUnits(key))
  let room = Number.NEGATIVE_INFINITY
  if (eligible && budgetMadeFor(key, true, shares) && data[key.at] === start) {
    const pendingStart = ledger[ledgerAt + LEDGER.PENDING_START]!
    if (Number.isNaN(pendingStart) || start > pendingStart) addPending(key, start, 0)
    if (start === ledger[ledgerAt + LEDGER.PENDING_START]) {
      room = roomUnder(budgetCap(key) - carriedIn(key, start), latestUnits(key))
    }
  }
  ledger[ledgerAt + LEDGER.ROOM_SET] = room
  data[roomAt(key)] = room
}

/** Write the view: known, with the pending units (the older windows first) merged in. */
export function rebuildView(key: SlabKey): void {
  const { kind, at, windowMs, ledger, ledgerAt } = key
  const view = key.slab.data
  for (let i = 0; i < key.slab.stateSize; i++) view[at + i] = ledger[ledgerAt + LEDGER.KNOWN + i]!
  mergeDeltas(kind, windowMs, view, at, ledger, ledgerAt + LEDGER.BEFORE)
  const units = latestUnits(key)
  if (units !== 0) kind.merge(view, at, ledger[ledgerAt + LEDGER.PENDING_START]!, units, windowMs)
}
