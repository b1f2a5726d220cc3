import type { ConsumeItem, Decision, Store } from './types.js'

/**
 * Decide several policies as one request: all must allow, and a refused request consumes nothing in any
 * policy. Uses the store's atomic `consumeAll` when it has one; otherwise consumes in order and refunds
 * what was taken when a later policy refuses (so a concurrent request may briefly see that quota spent).
 * The result has one decision per item; policies after a refusal are peeked, not consumed.
 */
export async function consumeAll(
  store: Store,
  items: readonly ConsumeItem[],
  now?: number,
): Promise<Decision[]> {
  if (store.consumeAll) return store.consumeAll(items, now)
  const decisions: Decision[] = []
  for (const item of items) {
    const decision = await store.consume(item.algorithm, item.key, item.cost, now)
    decisions.push(decision)
    if (decision.allowed) continue
    const taken = decisions.length - 1
    await Promise.all(
      items.slice(0, taken).map((done) => store.refund(done.algorithm, done.key, done.cost, now)),
    )
    for (const rest of items.slice(decisions.length)) {
      decisions.push(await store.peek(rest.algorithm, rest.key, rest.cost, now))
    }
    break
  }
  return decisions
}

/**
 * The decision that speaks for a set of policies: the first refusal (the one that asks for the longest
 * wait, when several refuse), or else the policy with the fewest units left relative to its limit.
 */
export function mostRestrictive(decisions: readonly Decision[]): Decision | undefined {
  let chosen: Decision | undefined
  for (const decision of decisions) {
    if (!chosen) {
      chosen = decision
      continue
    }
    if (decision.allowed !== chosen.allowed) {
      if (!decision.allowed) chosen = decision
      continue
    }
    if (!decision.allowed) {
      if (decision.retryAfterMs > chosen.retryAfterMs) chosen = decision
    } else if (decision.remaining / decision.limit < chosen.remaining / chosen.limit) {
      chosen = decision
    }
  }
  return chosen
}
