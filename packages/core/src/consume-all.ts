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
 * The index of the decision that speaks for a set of policies: the refusal that asks for the longest wait
 * (the first of equals), or, when all allow, the policy with the fewest units left relative to its limit.
 * -1 for none.
 */
export function mostRestrictiveIndex(decisions: readonly Decision[]): number {
  let chosen = decisions.length > 0 ? 0 : -1
  for (let i = 1; i < decisions.length; i++) {
    const d = decisions[i]!
    const best = decisions[chosen]!
    if (d.allowed) {
      if (best.allowed && d.remaining * best.limit < best.remaining * d.limit) chosen = i
    } else if (best.allowed || d.retryAfterMs > best.retryAfterMs) {
      chosen = i
    }
  }
  return chosen
}

/** The decision that speaks for a set of policies (see {@link mostRestrictiveIndex}). */
export function mostRestrictive(decisions: readonly Decision[]): Decision | undefined {
  return decisions[mostRestrictiveIndex(decisions)]
}
