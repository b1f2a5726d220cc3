import { boundDelays, boundOne, boundsDelay } from '../algorithms/bounded-delay.js'
import { consumeItems } from '../consume-all.js'
import type { Awaitable, ConsumeItem, Decision, Store } from '../types.js'

/**
 * Decide one request's items on the store, in the order of its policies: a single consume, or all of them
 * as one (`consumeAll`, atomic where the store can). Free items (cost 0) are peeked: counted as nothing, but
 * their decisions still give headers. `order` is the consumption order (narrowest policy first) for stores
 * that cannot decide all at once. Synchronous when the store is. A shaping bound (`maxDelay`) refuses a
 * request that would wait longer, and what it spent is given back.
 */
export function decideOnStore(
  store: Store,
  items: readonly ConsumeItem[],
  order: readonly number[] | undefined,
  now: number | undefined,
): Awaitable<Decision | Decision[]> {
  if (items.length === 1) {
    const item = items[0]!
    const decided =
      item.cost === 0
        ? store.peek(item.algorithm, item.key, 0, now)
        : store.consume(item.algorithm, item.key, item.cost, now)
    return boundOne(store, item, decided, now)
  }
  const decided = decideMany(store, items, order, now)
  if (!boundsDelay(items)) return decided
  return decided instanceof Promise
    ? decided.then((ds) => boundDelays(store, items, ds, now))
    : boundDelays(store, items, decided, now)
}

/** Whether every item costs something (none is a free peek): the common case, decided with no reordering. */
function allCharged(items: readonly ConsumeItem[]): boolean {
  for (let i = 0; i < items.length; i++) if (items[i]!.cost === 0) return false
  return true
}

function decideMany(
  store: Store,
  items: readonly ConsumeItem[],
  order: readonly number[] | undefined,
  now: number | undefined,
): Awaitable<Decision[]> {
  if (order === undefined && allCharged(items)) {
    return store.consumeAll ? store.consumeAll(items, now) : consumeItems(store, items, now)
  }
  const sequence = order ?? items.map((_, i) => i)
  const charged = sequence.filter((i) => items[i]!.cost > 0)
  const free = sequence.filter((i) => items[i]!.cost === 0)
  const chargedItems = charged.map((i) => items[i]!)
  const decided =
    chargedItems.length === 0
      ? []
      : store.consumeAll
        ? store.consumeAll(chargedItems, now)
        : consumeItems(store, chargedItems, now)
  const peeked = free.map((i) => store.peek(items[i]!.algorithm, items[i]!.key, 0, now))
  const place = (ds: readonly Decision[], ps: readonly Decision[]): Decision[] => {
    const out: Decision[] = new Array(items.length)
    for (let j = 0; j < charged.length; j++) out[charged[j]!] = ds[j]!
    for (let j = 0; j < free.length; j++) out[free[j]!] = ps[j]!
    return out
  }
  if (decided instanceof Promise || peeked.some((p) => p instanceof Promise)) {
    return Promise.all([decided, Promise.all(peeked)]).then(([ds, ps]) => place(ds, ps))
  }
  return place(decided as Decision[], peeked as Decision[])
}
