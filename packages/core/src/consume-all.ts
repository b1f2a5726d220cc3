import * as z from 'zod'
import { boundDelays, boundsDelay } from './algorithms/bounded-delay.js'
import { isCost } from './cost.js'
import { RateLimitConfigError } from './errors.js'
import type { Awaitable, ConsumeItem, Decision, Store } from './types.js'
import { algorithmSchema, parseOptions, storeSchema } from './validate.js'

const argumentsSchema = z.object({
  store: storeSchema,
  items: z.array(
    z.object({
      algorithm: algorithmSchema,
      key: z.string({ error: 'a non-empty string' }).min(1, { error: 'a non-empty string' }),
      cost: z.custom<number>(isCost, { error: 'a finite number >= 0' }),
    }),
    { error: 'an array of { algorithm, key, cost }' },
  ),
  now: z.number({ error: 'a time in ms (a finite number), or nothing' }).finite().optional(),
})

/**
 * Decide several policies as one request: all must allow, and a refused request consumes nothing in any
 * policy. Uses the store's atomic `consumeAll` when it has one; otherwise consumes in order and refunds
 * what was taken when a later policy refuses (so a concurrent request may briefly see that quota spent:
 * put the narrowest policy first). The result has one decision per item; policies after a refusal are
 * peeked, not consumed. A shaping bucket's `maxDelay` refuses a request that would wait longer, and what it
 * spent is given back.
 */
export function consumeAll(store: Store, items: readonly ConsumeItem[], now?: number): Promise<Decision[]> {
  try {
    parseOptions(argumentsSchema, { store, items, now }, 'consumeAll')
  } catch (error) {
    return Promise.reject(error)
  }
  return consumeItems(store, items, now)
}

/** {@link consumeAll} on items already checked: Floodgate's own calls. */
export function consumeItems(store: Store, items: readonly ConsumeItem[], now?: number): Promise<Decision[]> {
  const decided = decideAll(store, items, now)
  return boundsDelay(items) ? decided.then((ds) => boundDelays(store, items, ds, now)) : decided
}

function decideAll(store: Store, items: readonly ConsumeItem[], now?: number): Promise<Decision[]> {
  if (store.consumeAll) return Promise.resolve(store.consumeAll(items, now))
  return consumeInGroups({
    store,
    items,
    groups: items.map((_, i) => [i]),
    consumeGroup: ([item]) =>
      Promise.resolve(store.consume(item!.algorithm, item!.key, item!.cost, now)).then((d) => [d]),
    now,
  })
}

const ignored = (): void => {}

/**
 * Decide items group by group, in order, each group as one (`consumeGroup`, atomic where the store can):
 * when a group refuses, what earlier groups took is given back and the rest are peeked; when the store cannot
 * decide a group (it rejects), what earlier groups took is given back and the rejection goes on. A store that is
 * atomic only within a shard (a Redis Cluster slot) decides each shard's items as a group. Returns one
 * decision per item, in the items' order.
 */
export async function consumeInGroups(parts: {
  store: Pick<Store, 'peek' | 'refund' | 'release'>
  items: readonly ConsumeItem[]
  /** Indices into `items`, one array per group, in the order to consume them. */
  groups: readonly (readonly number[])[]
  /** Decide one group: its items, and their indices in `items`. */
  consumeGroup: (items: readonly ConsumeItem[], indices: readonly number[]) => Awaitable<Decision[]>
  now: number | undefined
}): Promise<Decision[]> {
  const { store, items, groups, consumeGroup, now } = parts
  const decisions: Decision[] = new Array(items.length)
  const taken: number[] = []
  // Best effort: a refund the store cannot make is its to report; it never turns a refusal into a failure.
  // Units with a lease (`concurrency`) go back by their lease: exactly the ones this request took.
  const giveBack = () =>
    Promise.all(
      taken.map((i) =>
        Promise.resolve()
          .then(() => {
            const { algorithm, key, cost } = items[i]!
            const lease = decisions[i]!.lease
            return lease === undefined
              ? store.refund(algorithm, key, cost, now)
              : store.release?.(algorithm, key, lease, now)
          })
          .catch(ignored),
      ),
    )
  for (let g = 0; g < groups.length; g++) {
    const group = groups[g]!
    let decided: Decision[]
    try {
      decided = await consumeGroup(
        group.map((i) => items[i]!),
        group,
      )
    } catch (error) {
      // The store could not decide this group: what earlier groups took is given back, and the failure goes
      // to the limiter's failMode.
      await giveBack()
      throw error
    }
    group.forEach((i, j) => {
      decisions[i] = decided[j]!
    })
    if (decided.every((d) => d.allowed)) {
      taken.push(...group)
      continue
    }
    await giveBack()
    for (const rest of groups.slice(g + 1)) {
      for (const i of rest)
        decisions[i] = await store.peek(items[i]!.algorithm, items[i]!.key, items[i]!.cost, now)
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
  if (!Array.isArray(decisions)) {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      'mostRestrictive.decisions',
      decisions,
      'an array of decisions',
    )
  }
  return decisions[mostRestrictiveIndex(decisions)]
}
