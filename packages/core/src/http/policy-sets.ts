import type { Algorithm, ConsumeItem } from '../types.js'
import { compileHeaders, type HeaderWriter, headerModes } from './headers.js'
import type { ParsedRateLimitOptions } from './options/schema.js'
import type { PlanOptions, RouteTierOptions, SettleFunction } from './options/types.js'
import type { OverridesRegistry } from './override-registry.js'
import {
  type CompiledPolicies,
  type CostFunction,
  compilePolicies,
  type Policy,
  type PolicyDef,
} from './policies.js'
import { basePolicyDefs, planPolicyDefs, routeTierAlgorithm } from './policy-defs.js'
import type { RequestInfo } from './request-info.js'

/** A set of policies decided together for a request, with its header writer. */
export interface PolicySet<N = any> extends CompiledPolicies<N> {
  readonly writeHeaders: HeaderWriter | undefined
  /** Whether the headers need the time (`legacy` sends an epoch reset). */
  readonly needsNow: boolean
  /** Whether a request decided by the set calls a function of the app's (`user`, a key or cost function). */
  readonly callsApp: boolean
  /**
   * With overrides: this set, its headers written for the algorithms a request's items decide with (an
   * override's quota in `RateLimit-Policy`): what a request an override applies to is decided with.
   */
  readonly overridden?: PolicySet<N>
}

/**
 * The policies that count a request before its plan is known: those of the base set keyed per client (by user,
 * key function or address), never one shared by every client (a global or per-endpoint limit, which a flood
 * without credentials would spend for everyone).
 */
export interface PlanGateSet<N> {
  readonly set: PolicySet<N>
  /**
   * The first plan's set of the same route: a request's facts for the gate are gathered for it (every plan's set
   * calls the same functions of the app's, and begins with the base policies, in order).
   */
  readonly factsSet: PolicySet<N>
  /** Its policies as they stand in `factsSet`: a request's items for the gate are built from these. */
  readonly policies: readonly Policy<N>[]
}

/** Which set of policies decides a request: by its plan and by its route's tier. */
export interface PolicySets<N> {
  /** The set for a request on `plan` (or none) and the route tier of `routeKey` (`'GET /x'`, or none). */
  get(plan: string | undefined, routeKey: string | undefined): PolicySet<N>
  /** With plans, the policies that count a request of the route of `routeKey` before its plan is known. */
  gate(routeKey: string | undefined): PlanGateSet<N>
  /**
   * The route whose tier decides a request (`'GET /x'`), when some route has a tier of its own (`routes`);
   * otherwise undefined, without reading the request's route.
   */
  routeKeyOf(info: RequestInfo<N>): string | undefined
  /** Whether some route has a tier of its own (`routes`): else `routeKeyOf` is always undefined. */
  readonly routed: boolean
  /** Whether any set may key on the client address (`'ip'`, or a fallback to it). */
  readonly needsIp: boolean
  /** Whether any set keys on `'endpoint'`, or routes have tiers: the route pattern is needed. */
  readonly needsRoute: boolean
  /** Every algorithm any set decides with, once each (a store checks it can run them at creation). */
  readonly algorithms: readonly Algorithm[]
  /**
   * With overrides: `set` without the policies of `dropped` (a bit per policy index), which an override of
   * `false` takes out of a request; built once per set and mask.
   */
  without(set: PolicySet<N>, dropped: number): PolicySet<N>
  /** Every policy with a `ban`, once per store-key scope (what `unban` lifts bans of). */
  readonly banned: readonly Policy<N>[]
  /** The policies of any set that settle their costs (`settle`), once each by name: empty when none does. */
  readonly settling: readonly Policy<N>[]
}

/**
 * Compile every set of policies a limiter can decide a request with: the base set (`limits` and `tiers`),
 * with a route's tier in place of the innermost tier (`routes`), plus a plan's `rate` and `quota`. All are
 * compiled now, so a tier looser than the one it sits under fails at creation, not on a request.
 */
export function compilePolicySets<N>(
  o: ParsedRateLimitOptions,
  overrides?: OverridesRegistry<N>,
): PolicySets<N> {
  const modes = headerModes(o.headers)
  const needsNow = modes.includes('legacy')
  const routes = (o.routes ?? {}) as Record<string, RouteTierOptions>
  const plans = (o.plans ?? {}) as Record<string, PlanOptions>
  const sets = new Map<string, PolicySet<N>>()
  const gates = new Map<string, PlanGateSet<N>>()
  const routeOf = (routeKey: string | undefined) =>
    routeKey === undefined ? undefined : { key: routeKey, algorithm: routeTierAlgorithm(routes[routeKey]!) }
  const compile = (plan: string | undefined, routeKey: string | undefined): PolicySet<N> => {
    const defs = [
      ...basePolicyDefs<N>(o, routeOf(routeKey)),
      ...(plan === undefined ? [] : planPolicyDefs<N>(o, plans[plan]!)),
    ]
    return compileSet(defs)
  }
  const compileSet = (defs: PolicyDef<N>[]): PolicySet<N> => {
    const compiled = withOverrides(
      compilePolicies<N>(defs, o.cost as number | CostFunction<N>, o.settle as SettleFunction<N> | undefined),
      overrides,
    )
    const writeHeaders = compileHeaders(
      modes,
      compiled.policies.map((p) => ({
        name: p.name,
        limit: p.algorithm.limit,
        windowMs: p.algorithm.windowMs,
      })),
    )
    const callsApp =
      (compiled.needsUser && o.user !== undefined) ||
      compiled.keyFunctions.length > 0 ||
      compiled.costFunctions.length > 0
    const set: PolicySet<N> = {
      ...compiled,
      writeHeaders,
      needsNow: needsNow && writeHeaders !== undefined,
      callsApp,
    }
    if (!compiled.policies.some((p) => p.overrides !== undefined)) return set
    return { ...set, overridden: { ...set, writeHeaders: overridableHeaders(modes, compiled.policies) } }
  }
  // With plans, the base set of each route too: what a request is checked against before its plan is known.
  const planNames = o.plans ? [undefined, ...Object.keys(plans)] : [undefined]
  for (const plan of planNames) {
    for (const routeKey of [undefined, ...Object.keys(routes)])
      sets.set(`${plan ?? ''}\n${routeKey ?? ''}`, compile(plan, routeKey))
  }
  if (o.plans) {
    for (const routeKey of [undefined, ...Object.keys(routes)]) {
      const base = sets.get(`\n${routeKey ?? ''}`)!
      const indices = base.policies.flatMap((p, i) => (p.breadth <= 1 ? [i] : []))
      const defs = basePolicyDefs<N>(o, routeOf(routeKey)).filter((_, i) => indices.includes(i))
      const firstPlan = sets.get(`${Object.keys(plans)[0]}\n${routeKey ?? ''}`)!
      gates.set(routeKey ?? '', {
        set: compileSet(defs),
        factsSet: firstPlan,
        policies: indices.map((i) => firstPlan.policies[i]!),
      })
    }
  }
  const all = [...sets.values()]
  const byRoute = Object.keys(routes).length > 0
  const byPlan = new Map(planNames.map((plan) => [plan, sets.get(`${plan ?? ''}\n`)!]))
  return {
    get: (plan, routeKey) =>
      routeKey === undefined || !(routeKey in routes)
        ? byPlan.get(plan)!
        : sets.get(`${plan ?? ''}\n${routeKey}`)!,
    gate: (routeKey) => gates.get(routeKey !== undefined && routeKey in routes ? routeKey : '')!,
    routeKeyOf: byRoute
      ? (info) => (info.route ? `${info.method} ${info.route}` : undefined)
      : () => undefined,
    routed: byRoute,
    needsIp: all.some((set) => set.needsIp),
    needsRoute: byRoute || all.some((set) => set.needsRoute),
    algorithms: [...new Set(all.flatMap((set) => set.policies.map((p) => p.algorithm)))],
    banned: [
      ...new Map(
        all.flatMap((set) =>
          set.policies.filter((p) => p.ban !== undefined).map((p) => [p.scope, p] as const),
        ),
      ).values(),
    ],
    settling: [
      ...new Map(
        all.flatMap((set) => set.policies.filter((p) => p.settleIndex >= 0).map((p) => [p.name, p] as const)),
      ).values(),
    ],
    without: (set, dropped) => {
      let byMask = subsets.get(set)
      if (byMask === undefined) {
        byMask = new Map()
        subsets.set(set, byMask)
      }
      let subset = byMask.get(dropped)
      if (subset === undefined) {
        subset = subsetOf(set, dropped, modes)
        byMask.set(dropped, subset)
      }
      return subset
    },
  }
}

// The sets a `false` override makes, by set and mask: at most 2^n per set, n its policies with overrides.
const subsets = new WeakMap<PolicySet, Map<number, PolicySet>>()

/** A set without the policies of `dropped` (a bit per index): their order and headers recomputed. */
function subsetOf<N>(
  set: PolicySet<N>,
  dropped: number,
  modes: ReturnType<typeof headerModes>,
): PolicySet<N> {
  const policies = set.policies.filter((_, i) => (dropped & (1 << i)) === 0)
  const sorted = policies
    .map((_, i) => i)
    .sort((a, b) => policies[a]!.breadth - policies[b]!.breadth || a - b)
  const writeHeaders = overridableHeaders(modes, policies)
  return {
    ...set,
    policies,
    order: sorted.every((p, i) => p === i) ? undefined : sorted,
    writeHeaders,
    needsNow: set.needsNow && writeHeaders !== undefined,
    overridden: undefined, // its headers already follow the items' algorithms
  }
}

/** The policies, each with its overrides when the registry has some for its name (limits only). */
function withOverrides<N>(
  compiled: CompiledPolicies<N>,
  overrides: OverridesRegistry<N> | undefined,
): CompiledPolicies<N> {
  if (overrides === undefined) return compiled
  const policies = compiled.policies.map((p) => {
    const table = p.role === 'limit' ? overrides.of(p.name) : undefined
    return table === undefined ? p : { ...p, overrides: table }
  })
  return { ...compiled, policies }
}

/** How many header writers for overridden algorithms a set keeps; past it, it starts again from none. */
const KEPT_OVERRIDE_WRITERS = 256

/**
 * The header writer of a set of policies. With overrides, a request whose items decide with another algorithm
 * than their policy's (an override) gets headers of that algorithm's quota (`RateLimit-Policy`): a writer per
 * combination of algorithms, built when first met and kept (at most 256 per set).
 */
function overridableHeaders<N>(
  modes: ReturnType<typeof headerModes>,
  policies: readonly Policy<N>[],
): HeaderWriter | undefined {
  const headerPolicy = (name: string, algorithm: Algorithm) => ({
    name,
    limit: algorithm.limit,
    windowMs: algorithm.windowMs,
  })
  const base = compileHeaders(
    modes,
    policies.map((p) => headerPolicy(p.name, p.algorithm)),
  )
  if (base === undefined || !policies.some((p) => p.overrides !== undefined)) return base
  const kept = new Map<string | Algorithm, HeaderWriter>()
  const count = policies.length
  return (out, decisions, chosen, now, items?: readonly ConsumeItem[]) => {
    let same = true
    if (items !== undefined) {
      for (let i = 0; i < count; i++) if (items[i]!.algorithm !== policies[i]!.algorithm) same = false
    }
    if (same) return base(out, decisions, chosen, now)
    // One policy: its writer by the override's algorithm; several: by their algorithms' ids.
    const ids = count === 1 ? items![0]!.algorithm : items!.map((item) => item.algorithm.id).join('\n')
    let write = kept.get(ids)
    if (write === undefined) {
      if (kept.size >= KEPT_OVERRIDE_WRITERS) kept.clear()
      write = compileHeaders(
        modes,
        policies.map((p, i) => headerPolicy(p.name, items![i]!.algorithm)),
      )!
      kept.set(ids, write)
    }
    write(out, decisions, chosen, now)
  }
}
