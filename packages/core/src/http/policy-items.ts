import type { ConsumeItem } from '../types.js'
import type { Policy } from './policies.js'
import type { RequestFacts } from './request-facts.js'

/**
 * What the store decides for a request: one item (algorithm, key, cost) per policy, from the facts its app
 * functions gave; `undefined` when a policy finds no key (the client's address is unknown: never one shared
 * bucket).
 */
export function itemsOf<N>(
  policies: readonly Policy<N>[],
  facts: RequestFacts<N>,
): ConsumeItem[] | undefined {
  const count = policies.length
  const items: ConsumeItem[] = new Array(count)
  for (let i = 0; i < count; i++) {
    const policy = policies[i]!
    const key = policy.keyer(facts.keys, policy.scope)
    if (key === undefined) return undefined
    const cost = policy.cost ?? facts.costs[policy.costIndex] ?? policy.fallbackCost
    items[i] = { algorithm: policy.algorithm, key, cost }
  }
  return items
}
