/**
 * What a key's budget was made under: in its window (kept on the slab, `NUMBER.START`), decided online or not
 * (`online`) with allowances divided by `shares`, at most `cap` units admitted locally may be unacknowledged (the
 * allowance, as last computed: a lower bound of what it is later in the window, as it only grows with time
 * there). A request within it may be admitted at once; one beyond it is decided the long way. Anything that
 * changes what the allowance is computed from resets it (the window set to NaN).
 */
export class KeyBudget {
  cap = 0
  online = true
  shares = 0

  /** Whether a decision `online`, with allowances divided by `shares`, would have made this budget. */
  madeFor(online: boolean, shares: number): boolean {
    return online === this.online && shares === this.shares
  }
}
