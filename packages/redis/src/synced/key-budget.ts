import { LEDGER, type LedgerKey } from './key-ledger.js'

/** Costs are whole multiples of 1/1024: a room made of a cap rounded down to them holds every unit count exactly. */
const UNIT = 1024

/**
 * A key's budget, in its ledger: in its window (`BUDGET_START`; NaN: none), decided online or not, with
 * allowances divided by a number of shares, at most a cap of unacknowledged units (the allowance as last
 * computed: a lower bound of what it is later in the window, as it only grows with time there). A request within
 * it may be admitted at once; one beyond it is decided the long way.
 */
export interface BudgetTerms {
  start: number
  cap: number
  online: boolean
  shares: number
}

/** The start of the budget's window (NaN: no budget). */
export const budgetStart = (key: LedgerKey): number => key.ledger[key.ledgerAt + LEDGER.BUDGET_START]!

/** No budget any more: the next decision makes one. */
export function dropBudget(key: LedgerKey): void {
  key.ledger[key.ledgerAt + LEDGER.BUDGET_START] = Number.NaN
}

/** The budget's cap on unacknowledged units. */
export const budgetCap = (key: LedgerKey): number => key.ledger[key.ledgerAt + LEDGER.BUDGET_CAP]!

export function writeBudget(key: LedgerKey, terms: BudgetTerms): void {
  const { ledger, ledgerAt } = key
  ledger[ledgerAt + LEDGER.BUDGET_START] = terms.start
  ledger[ledgerAt + LEDGER.BUDGET_CAP] = terms.cap
  ledger[ledgerAt + LEDGER.BUDGET_ONLINE] = terms.online ? 1 : 0
  ledger[ledgerAt + LEDGER.BUDGET_SHARES] = terms.shares
}

/** Whether a decision `online`, with allowances divided by `shares`, would have made the budget. */
export function budgetMadeFor(key: LedgerKey, online: boolean, shares: number): boolean {
  const { ledger, ledgerAt } = key
  return (
    ledger[ledgerAt + LEDGER.BUDGET_ONLINE] === (online ? 1 : 0) &&
    ledger[ledgerAt + LEDGER.BUDGET_SHARES] === shares
  )
}

/**
 * Whether the budget covers a request of `cost` at time `t`, decided `online` with allowances divided by
 * `shares`: `t` in its window, and its cap less the window's `unacked` units at least `cost`.
 */
export function budgetCovers(
  key: LedgerKey & { readonly windowMs: number },
  request: { cost: number; t: number; online: boolean; shares: number; unacked: number },
): boolean {
  const start = budgetStart(key)
  return (
    request.t >= start &&
    request.t < start + key.windowMs &&
    budgetMadeFor(key, request.online, request.shares) &&
    request.cost <= budgetCap(key) - request.unacked
  )
}

/** The room a cap on pending units leaves them: the cap rounded down to whole units of cost, less the units. */
export const roomUnder = (cap: number, pending: number): number => Math.floor(cap * UNIT) / UNIT - pending
