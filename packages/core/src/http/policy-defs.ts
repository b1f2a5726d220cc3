import { calendarQuota } from '../algorithms/calendar-quota.js'
import { slidingWindowCounter } from '../algorithms/sliding-window-counter.js'
import { tokenBucket } from '../algorithms/token-bucket.js'
import { toMs } from '../duration.js'
import type { Algorithm, BanRule } from '../types.js'
import type { KeySpec } from './key-spec.js'
import { RATE_LIMIT_DEFAULTS as D } from './options/defaults.js'
import { defaultName, type ParsedRateLimitOptions } from './options/schema.js'
import type { PlanOptions, PolicyOptions, RouteTierOptions } from './options/types.js'
import { type CostFunction, PLAN_KEY, type PolicyDef } from './policies.js'
import { checkTighter } from './tiers.js'

type Spec<N> = PolicyOptions<N>

/** The scope of a policy's store keys: the limiter's prefix and the policy's name. */
const scopeOf = (prefix: string, name: string) => `${prefix === '' ? '' : `${prefix}:`}${name}|`
/** The scope of a tier's store keys: its name alone, so apps sharing a store share the tier. */
const tierScope = (name: string) => `tiers|${name}|`

const def = <N>(spec: Spec<N>, scope: (name: string) => string, role: PolicyDef['role']): PolicyDef<N> => {
  const name = spec.name ?? defaultName(spec.key)
  return {
    name,
    algorithm: spec.algorithm,
    scope: scope(name),
    key: (spec.key ?? D.key) as KeySpec<N>,
    cost: spec.cost as number | CostFunction<N> | undefined,
    role,
    ban: banRule(spec.ban),
    settle: spec.settle,
  }
}

/** A policy's `ban` option as the store takes it (durations in ms; the schema has checked them). */
function banRule(ban: PolicyOptions['ban']): BanRule | undefined {
  if (ban === undefined) return undefined
  return { after: ban.after, withinMs: toMs(ban.within)!, forMs: toMs(ban.for)! }
}

/** The algorithm of a route's tier: its own, or the short form's sliding window counter. */
export function routeTierAlgorithm(route: RouteTierOptions): Algorithm {
  return 'algorithm' in route
    ? route.algorithm
    : slidingWindowCounter({ limit: route.limit, window: route.window })
}

/**
 * The policies every request of a limiter is checked against: `limits` (or the short form's one policy)
 * and `tiers`, the innermost replaced by `routeTier` when given. Checks that every tier is tighter than
 * the one before it (and a route's tier tighter than the one it replaces).
 */
export function basePolicyDefs<N>(
  o: ParsedRateLimitOptions,
  routeTier?: { key: string; algorithm: Algorithm },
): PolicyDef<N>[] {
  const limits: Spec<N>[] = o.limits
    ? (o.limits as Spec<N>[])
    : (o.tiers || o.plans) && o.limit === undefined && o.window === undefined && !o.algorithm
      ? []
      : [
          {
            name: o.name,
            key: o.key as KeySpec<N> | undefined,
            ban: o.ban,
            algorithm:
              o.algorithm ??
              slidingWindowCounter({ limit: o.limit ?? D.limit, window: o.window ?? D.window }),
          },
        ]
  const defs = limits.map((spec) => def(spec, (name) => scopeOf(o.prefix, name), 'limit'))
  const tiers = (o.tiers ?? []) as Spec<N>[]
  tiers.forEach((spec, i) => {
    if (i === 0) return
    checkTighter({
      inner: {
        name: spec.name ?? defaultName(spec.key),
        algorithm: spec.algorithm,
        option: `rateLimit.tiers[${i}]`,
      },
      outer: {
        name: tiers[i - 1]!.name ?? defaultName(tiers[i - 1]!.key),
        algorithm: tiers[i - 1]!.algorithm,
        option: `rateLimit.tiers[${i - 1}]`,
      },
    })
  })
  const tierDefs = tiers.map((spec) => def(spec, tierScope, 'tier'))
  if (routeTier && tierDefs.length > 0) {
    const innermost = tierDefs[tierDefs.length - 1]!
    checkTighter({
      inner: {
        name: `${innermost.name} on ${routeTier.key}`,
        algorithm: routeTier.algorithm,
        option: `rateLimit.routes['${routeTier.key}']`,
      },
      outer: {
        name: innermost.name,
        algorithm: innermost.algorithm,
        option: `rateLimit.tiers[${tierDefs.length - 1}]`,
      },
    })
    tierDefs[tierDefs.length - 1] = { ...innermost, algorithm: routeTier.algorithm }
  }
  return [...defs, ...tierDefs]
}

/**
 * A usage plan's two policies, keyed by the plan's caller: `rate`, a token bucket (`rate` a second, `burst`
 * at once), and `quota`, a calendar quota. The quota keeps no limit in its state, so a key that changes
 * plan keeps what it used this period.
 */
export function planPolicyDefs<N>(o: ParsedRateLimitOptions, plan: PlanOptions): PolicyDef<N>[] {
  const burst = plan.burst ?? Math.max(1, Math.ceil(plan.rate))
  const defs: PolicyDef<N>[] = [
    {
      name: 'rate',
      algorithm: tokenBucket({ capacity: burst, refillRate: plan.rate, interval: 1000 }),
      scope: scopeOf(o.prefix, 'rate'),
      key: PLAN_KEY,
      cost: undefined,
      role: 'rate',
      ban: undefined,
    },
  ]
  if (plan.quota) {
    defs.push({
      name: 'quota',
      algorithm: calendarQuota(plan.quota),
      scope: scopeOf(o.prefix, 'quota'),
      key: PLAN_KEY,
      cost: undefined,
      role: 'quota',
      ban: undefined,
    })
  }
  return defs
}
