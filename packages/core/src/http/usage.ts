import { storeKey } from '../store-keys/store-key.js'
import type { Store } from '../types.js'
import type { PlanResolver } from './plans.js'
import type { PolicySets } from './policy-sets.js'

/** What an API key has used of its plan, as a gateway's usage report has it. */
export interface Usage {
  apiKey: string
  plan: string
  /** The plan's quota this period: `undefined` when the plan has none. */
  quota: { limit: number; used: number; remaining: number; resetMs: number } | undefined
  /** The plan's token bucket now: `remaining` requests may go at once. */
  rate: { limit: number; remaining: number; resetMs: number }
}

/** The usage report of a limiter with plans (for support staff and dashboards). */
export interface UsageReport {
  /** What `apiKey` has used; `undefined` when `planOf` does not know it. Rejects when the lookup fails. */
  usage(apiKey: string): Promise<Usage | undefined>
  /** Forget what `apiKey` used: its quota (and its rate bucket) start afresh. `false` for an unknown key. */
  resetUsage(apiKey: string): Promise<boolean>
}

/** Compile the usage report over the store and the plans' policies. */
export function compileUsageReport<N>(parts: {
  store: Store
  sets: PolicySets<N>
  resolver: PlanResolver<N>
  clock: (() => number) | undefined
}): UsageReport {
  const { store, sets, resolver, clock } = parts
  const planPolicies = async (apiKey: string) => {
    const found = await resolver.planOfKey(apiKey)
    if (found === undefined) return undefined
    const policies = sets
      .get(found.plan, undefined)
      .policies.filter((p) => p.role === 'rate' || p.role === 'quota')
    return { found, policies: policies.map((p) => ({ policy: p, key: storeKey(p.scope, found.partition) })) }
  }
  return {
    async usage(apiKey) {
      const plan = await planPolicies(apiKey)
      if (plan === undefined) return undefined
      const now = clock?.()
      const peeked = await Promise.all(
        plan.policies.map(({ policy, key }) => store.peek(policy.algorithm, key, 0, now)),
      )
      const of = (role: string) => peeked[plan.policies.findIndex((p) => p.policy.role === role)]
      const rate = of('rate')!
      const quota = of('quota')
      return {
        apiKey,
        plan: plan.found.plan,
        quota: quota && {
          limit: quota.limit,
          used: quota.limit - quota.remaining,
          remaining: quota.remaining,
          resetMs: quota.resetMs,
        },
        rate: { limit: rate.limit, remaining: rate.remaining, resetMs: rate.resetMs },
      }
    },
    async resetUsage(apiKey) {
      const plan = await planPolicies(apiKey)
      if (plan === undefined) return false
      await Promise.all(plan.policies.map(({ policy, key }) => store.reset(policy.algorithm, key)))
      return true
    },
  }
}
