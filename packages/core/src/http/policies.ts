import { normalizeCost } from '../cost.js'
import { storeKey } from '../store-keys/store-key.js'
import type { Algorithm, Awaitable, BanRule } from '../types.js'
import { type CompiledKey, compileKey, type Keyer, type KeyFunction, type KeySpec } from './key-spec.js'
import { RATE_LIMIT_DEFAULTS } from './options/defaults.js'
import type { RequestFunction, SettleFunction } from './options/types.js'
import type { PolicyOverrides } from './overrides.js'

/** A cost function of the app's. */
export type CostFunction<N = any> = RequestFunction<N, Awaitable<number>>

/** Keys a policy by the request's usage-plan caller (its API key, or its address on the anonymous plan). */
export const PLAN_KEY = Symbol('the plan caller')

/** What a policy is for, when it changes how a refusal reads: a usage plan's quota says "Limit Exceeded". */
export type PolicyRole = 'limit' | 'tier' | 'rate' | 'quota'

/** One policy before compiling: its name, algorithm, store-key scope, key and cost. */
export interface PolicyDef<N = any> {
  readonly name: string
  readonly algorithm: Algorithm
  /** What its store keys start with (configuration only, never a client's): `prefix:name|`. */
  readonly scope: string
  readonly key: KeySpec<N> | typeof PLAN_KEY
  readonly cost: number | CostFunction<N> | undefined
  readonly role: PolicyRole
  /** Its `ban`, in ms; `undefined` without one. */
  readonly ban: BanRule | undefined
  /** Its own `settle` (settled costs); without it, it takes the top-level one when it takes the top-level cost. */
  readonly settle?: SettleFunction<N> | undefined
}

/** One policy, compiled. */
export interface Policy<N = any> {
  readonly name: string
  readonly algorithm: Algorithm
  readonly scope: string
  readonly keyer: Keyer<N>
  /** Its cost when fixed; `undefined` when a function gives it. */
  readonly cost: number | undefined
  /** The cost function's index in {@link CompiledPolicies.costFunctions}, or -1. */
  readonly costIndex: number
  /** What a request is charged when its cost function fails: the top-level cost when a number, else 1. */
  readonly fallbackCost: number
  readonly role: PolicyRole
  /** How shared its buckets are: 0 per caller (user, key function, plan caller), 1 per address, 2 per endpoint, 3 for all. */
  readonly breadth: number
  /** Its `ban`, carried by each of its store items; `undefined` without one. */
  readonly ban: BanRule | undefined
  /** What it counts per, as configured (`unban` builds its store keys from it); `undefined` for a plan's. */
  readonly key: KeySpec<N> | undefined
  /** Its settle function's index in {@link CompiledPolicies.settleFunctions}, or -1 when it does not settle. */
  readonly settleIndex: number
  /** Its overrides, when it has an `overrides` option (overrides.ts). */
  readonly overrides?: PolicyOverrides<N>
}

/** A set of policies decided together, and what they need computed per request. */
export interface CompiledPolicies<N = any> {
  readonly policies: readonly Policy<N>[]
  /**
   * The order to consume them in when a store cannot decide them all at once (a Redis Cluster across
   * slots): narrowest first (per caller, then per address, per endpoint, global), so a request refused by
   * a narrow policy never holds quota in a shared one. `undefined` when that is the given order.
   */
  readonly order: readonly number[] | undefined
  readonly keyFunctions: readonly KeyFunction<N>[]
  readonly costFunctions: readonly CostFunction<N>[]
  /** The settle functions its policies settle with (settled costs), each once; empty when none settles. */
  readonly settleFunctions: readonly SettleFunction<N>[]
  readonly needsIp: boolean
  readonly needsUser: boolean
  readonly needsRoute: boolean
}

/**
 * The key of a plan's policy (`slot` 0 its rate, 1 its quota): built once per caller and kept with it. A
 * slot's scope is the same in every set of a limiter (the prefix and the policy's name), so it is the key.
 */
const planKeyed = (slot: number): CompiledKey => ({
  keyer: (facts, scope) => {
    const caller = facts.plan
    if (caller === undefined) return undefined
    const known = caller.keys[slot]
    if (known !== undefined) return known
    const key = storeKey(scope, caller.partition)
    caller.keys[slot] = key
    return key
  },
  needsIp: false,
  needsUser: false,
  needsRoute: false,
  breadth: 0,
})
const PLAN_KEYED = [planKeyed(0), planKeyed(1)] as const

/**
 * Compile a set of policies, once, at creation. `topCost` is the top-level `cost` option, `topSettle` the
 * top-level `settle`: a policy settles with its own `settle`, else with `topSettle` when it takes `topCost`
 * (it sets no `cost` of its own), else not at all.
 */
export function compilePolicies<N>(
  defs: readonly PolicyDef<N>[],
  topCost: number | CostFunction<N>,
  topSettle?: SettleFunction<N>,
): CompiledPolicies<N> {
  const keyFunctions: KeyFunction<N>[] = []
  const costFunctions: CostFunction<N>[] = []
  const settleFunctions: SettleFunction<N>[] = []
  const fallbackCost = typeof topCost === 'number' ? normalizeCost(topCost) : RATE_LIMIT_DEFAULTS.cost
  const keys: CompiledKey<N>[] = []
  const policies = defs.map((def): Policy<N> => {
    const compiled =
      def.key === PLAN_KEY ? PLAN_KEYED[def.role === 'quota' ? 1 : 0] : compileKey(def.key, keyFunctions)
    keys.push(compiled)
    const cost = def.cost ?? topCost
    let costIndex = -1
    if (typeof cost === 'function') {
      costIndex = costFunctions.indexOf(cost)
      if (costIndex === -1) costIndex = costFunctions.push(cost) - 1
    }
    const settle = def.settle ?? (def.cost === undefined ? topSettle : undefined)
    let settleIndex = -1
    if (settle !== undefined) {
      settleIndex = settleFunctions.indexOf(settle)
      if (settleIndex === -1) settleIndex = settleFunctions.push(settle) - 1
    }
    return {
      name: def.name,
      algorithm: def.algorithm,
      scope: def.scope,
      keyer: compiled.keyer,
      cost: typeof cost === 'number' ? normalizeCost(cost) : undefined,
      costIndex,
      fallbackCost: typeof cost === 'number' ? normalizeCost(cost) : fallbackCost,
      role: def.role,
      breadth: compiled.breadth,
      ban: def.ban,
      key: def.key === PLAN_KEY ? undefined : def.key,
      settleIndex,
    }
  })
  const sorted = policies.map((_, i) => i).sort((a, b) => keys[a]!.breadth - keys[b]!.breadth || a - b)
  return {
    policies,
    order: sorted.every((p, i) => p === i) ? undefined : sorted,
    keyFunctions,
    costFunctions,
    settleFunctions,
    needsIp: keys.some((k) => k.needsIp),
    needsUser: keys.some((k) => k.needsUser),
    needsRoute: keys.some((k) => k.needsRoute),
  }
}
