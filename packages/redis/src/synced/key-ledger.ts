import {
  addAllDeltas,
  addDelta,
  clearDeltas,
  DELTAS,
  DELTAS_WIDTH,
  deltaAt,
  deltasEmpty,
} from './window-deltas.js'
import type { WindowKind } from './window-kinds.js'

/**
 * What a key keeps for its syncs, as numbers in its slab's ledger (offsets from the key's start there): beside
 * the view a decision runs on (`KeySlab.data`), a second flat buffer with the same slots, so that a sync reads
 * and writes a few contiguous numbers per key rather than a handful of small objects spread over the heap. See
 * {@link SyncedKey} for what each means.
 */
export const LEDGER = {
  /** The key's state in Redis as last read, plus what this process admitted through Redis since (3 numbers). */
  KNOWN: 0,
  /** Pending units of windows older than the latest pending one (window deltas, `DELTAS`). */
  BEFORE: 3,
  /** The window of the latest pending units (NaN: none). */
  PENDING_START: 3 + DELTAS_WIDTH,
  /** The units of the sync in flight (window deltas). */
  CARRIED: 4 + DELTAS_WIDTH,
  /** Units Redis admitted for the key behind the sync in flight, not in what it reads (window deltas). */
  BEHIND: 4 + 2 * DELTAS_WIDTH,
  /** 1 while a sync carries the key, else 0. */
  FLYING: 4 + 3 * DELTAS_WIDTH,
  /** How many syncs have carried the key: the number of the one in flight, while one is. */
  SENDS: 5 + 3 * DELTAS_WIDTH,
  /**
   * The budget: the start of its window (NaN: none), its cap on unacknowledged units, whether it was made online
   * (1) or not (0), and what allowances were divided by.
   */
  BUDGET_START: 6 + 3 * DELTAS_WIDTH,
  BUDGET_CAP: 7 + 3 * DELTAS_WIDTH,
  BUDGET_ONLINE: 8 + 3 * DELTAS_WIDTH,
  BUDGET_SHARES: 9 + 3 * DELTAS_WIDTH,
  /**
   * The latest pending window's units when the slab's room (`NUMBER.ROOM`) was last set, and that room
   * (-Infinity: none): the units are these plus what decisions on the slab took off the room since.
   */
  PENDING_UNITS: 10 + 3 * DELTAS_WIDTH,
  ROOM_SET: 11 + 3 * DELTAS_WIDTH,
} as const
/** How many numbers a key keeps in the ledger. */
export const LEDGER_WIDTH = 12 + 3 * DELTAS_WIDTH

/** Set a new key's ledger numbers at `at` (the slot is zeroed): nothing pending, none in flight, no budget. */
export function startLedger(ledger: Float64Array, at: number): void {
  clearDeltas(ledger, at + LEDGER.BEFORE)
  ledger[at + LEDGER.PENDING_START] = Number.NaN
  clearDeltas(ledger, at + LEDGER.CARRIED)
  clearDeltas(ledger, at + LEDGER.BEHIND)
  ledger[at + LEDGER.BUDGET_START] = Number.NaN
  ledger[at + LEDGER.BUDGET_ONLINE] = 1
  ledger[at + LEDGER.ROOM_SET] = Number.NEGATIVE_INFINITY
}

/**
 * A key's numbers, as the functions below use them: its ledger and where its numbers start there, and the units
 * of its latest pending window (see `LEDGER.PENDING_UNITS`).
 */
export interface LedgerKey {
  readonly ledger: Float64Array
  readonly ledgerAt: number
  pendingUnits: number
}

/** Pending units of the window starting at `start`. */
export function pendingAt(key: LedgerKey, start: number): number {
  return start === key.ledger[key.ledgerAt + LEDGER.PENDING_START]
    ? key.pendingUnits
    : deltaAt(key.ledger, key.ledgerAt + LEDGER.BEFORE, start)
}

/** Whether the key has no pending units. */
export function pendingEmpty(key: LedgerKey): boolean {
  return key.pendingUnits === 0 && deltasEmpty(key.ledger, key.ledgerAt + LEDGER.BEFORE)
}

/** Add pending units, counted in the window starting at `start`; a later window becomes the latest. */
export function addPending(key: LedgerKey, start: number, amount: number): void {
  const { ledger, ledgerAt } = key
  const latest = ledger[ledgerAt + LEDGER.PENDING_START]!
  if (start === latest) key.pendingUnits += amount
  else if (start > latest || Number.isNaN(latest)) {
    if (key.pendingUnits !== 0) addDelta(ledger, ledgerAt + LEDGER.BEFORE, latest, key.pendingUnits)
    ledger[ledgerAt + LEDGER.PENDING_START] = start
    key.pendingUnits = amount
  } else {
    addDelta(ledger, ledgerAt + LEDGER.BEFORE, start, amount)
  }
}

/** A sync takes off with the key: every pending unit becomes a unit it carries, and nothing is behind it yet. */
export function takeOff(key: LedgerKey): void {
  const { ledger, ledgerAt: l } = key
  clearDeltas(ledger, l + LEDGER.CARRIED)
  clearDeltas(ledger, l + LEDGER.BEHIND)
  ledger[l + LEDGER.FLYING] = 1
  ledger[l + LEDGER.SENDS] = ledger[l + LEDGER.SENDS]! + 1
  addAllDeltas(ledger, l + LEDGER.CARRIED, l + LEDGER.BEFORE)
  addDelta(ledger, l + LEDGER.CARRIED, ledger[l + LEDGER.PENDING_START]!, key.pendingUnits)
  clearDeltas(ledger, l + LEDGER.BEFORE)
  ledger[l + LEDGER.PENDING_START] = Number.NaN
  key.pendingUnits = 0
}

/** The sync carrying the key landed or failed: nothing is in flight, or behind it. */
export function land(key: LedgerKey): void {
  clearDeltas(key.ledger, key.ledgerAt + LEDGER.BEHIND)
  key.ledger[key.ledgerAt + LEDGER.FLYING] = 0
}

/** Units of the window starting at `start` that the sync in flight carries (0 when none is in flight). */
export function carriedIn(key: LedgerKey, start: number): number {
  const { ledger, ledgerAt } = key
  return ledger[ledgerAt + LEDGER.FLYING] === 1 ? deltaAt(ledger, ledgerAt + LEDGER.CARRIED, start) : 0
}

/** The units the sync in flight carries (those added; units given back are not counted). */
export function carriedUnits(key: LedgerKey): number {
  const { ledger } = key
  const at = key.ledgerAt + LEDGER.CARRIED
  if (ledger[key.ledgerAt + LEDGER.FLYING] !== 1) return 0
  return Math.max(0, ledger[at + DELTAS.A]!) + Math.max(0, ledger[at + DELTAS.B]!)
}

/** The units a failed sync carried are pending again. Call before `land`. */
export function putBack(key: LedgerKey): void {
  const { ledger } = key
  const at = key.ledgerAt + LEDGER.CARRIED
  if (ledger[key.ledgerAt + LEDGER.FLYING] !== 1) return
  if (ledger[at + DELTAS.A] !== 0) addPending(key, ledger[at + DELTAS.A_START]!, ledger[at + DELTAS.A]!)
  if (ledger[at + DELTAS.B] !== 0) addPending(key, ledger[at + DELTAS.B_START]!, ledger[at + DELTAS.B]!)
}

/** Merge the window deltas at `from` of `ledger` into the state at `to` of `state`, the older window first. */
export function mergeDeltas(
  kind: WindowKind,
  windowMs: number,
  state: Float64Array,
  to: number,
  ledger: Float64Array,
  from: number,
): void {
  if (ledger[from + DELTAS.A] !== 0) {
    kind.merge(state, to, ledger[from + DELTAS.A_START]!, ledger[from + DELTAS.A]!, windowMs)
  }
  if (ledger[from + DELTAS.B] !== 0) {
    kind.merge(state, to, ledger[from + DELTAS.B_START]!, ledger[from + DELTAS.B]!, windowMs)
  }
}
