import { slidingWindowCounter } from '../algorithms/index.js'
import { normalizeCost } from '../cost.js'
import type { Algorithm, Awaitable } from '../types.js'
import { type CompiledKey, compileKey, type Keyer, type KeyFunction, type KeySpec } from './key-spec.js'
import { RATE_LIMIT_DEFAULTS } from './options/defaults.js'
import { defaultName, type ParsedRateLimitOptions } from './options/schema.js'
import type { RequestFunction } from './options/types.js'

/** A cost function of the app's. */
export type CostFunction<N = any> = RequestFunction<N, Awaitable<number>>

/** One policy, compiled at creation. */
export interface Policy<N = any> {
  readonly name: string
  readonly algorithm: Algorithm
  /** What its store keys start with: `prefix:name|` (configuration only, never a client's). */
  readonly scope: string
  readonly keyer: Keyer<N>
  /** Its cost when fixed; `undefined` when a function gives it. */
  readonly cost: number | undefined
  /** The cost function's index in {@link CompiledPolicies.costFunctions}, or -1. */
  readonly costIndex: number
  /** What a request is charged when its cost function fails: the top-level cost when a number, else 1. */
  readonly fallbackCost: number
}

/** Every policy of a limiter, and what they need computed per request. */
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
  readonly needsIp: boolean
  readonly needsUser: boolean
  readonly needsRoute: boolean
}

interface PolicySpec<N> {
  name?: string | undefined
  key?: KeySpec<N> | undefined
  algorithm: Algorithm
  cost?: number | CostFunction<N> | undefined
}

/** The policies of parsed options: `limits`, or the short form's single policy. */
function specsOf<N>(o: ParsedRateLimitOptions): PolicySpec<N>[] {
  if (o.limits) return o.limits as PolicySpec<N>[]
  const algorithm =
    o.algorithm ??
    slidingWindowCounter({
      limit: o.limit ?? RATE_LIMIT_DEFAULTS.limit,
      window: o.window ?? RATE_LIMIT_DEFAULTS.window,
    })
  return [{ name: o.name, key: o.key as KeySpec<N> | undefined, algorithm }]
}

/** Compile the policies of parsed options, once, at creation. */
export function compilePolicies<N>(o: ParsedRateLimitOptions): CompiledPolicies<N> {
  const keyFunctions: KeyFunction<N>[] = []
  const costFunctions: CostFunction<N>[] = []
  const top = o.cost as number | CostFunction<N>
  const fallbackCost = typeof top === 'number' ? normalizeCost(top) : RATE_LIMIT_DEFAULTS.cost
  const prefix = o.prefix === '' ? '' : `${o.prefix}:`
  const keys: CompiledKey<N>[] = []
  const policies = specsOf<N>(o).map((spec): Policy<N> => {
    const name = spec.name ?? defaultName(spec.key)
    const compiled = compileKey(spec.key ?? RATE_LIMIT_DEFAULTS.key, keyFunctions)
    keys.push(compiled)
    const cost = spec.cost ?? top
    let costIndex = -1
    if (typeof cost === 'function') {
      costIndex = costFunctions.indexOf(cost)
      if (costIndex === -1) costIndex = costFunctions.push(cost) - 1
    }
    return {
      name,
      algorithm: spec.algorithm,
      scope: `${prefix}${name}|`,
      keyer: compiled.keyer,
      cost: typeof cost === 'number' ? normalizeCost(cost) : undefined,
      costIndex,
      fallbackCost: typeof cost === 'number' ? normalizeCost(cost) : fallbackCost,
    }
  })
  const indices = policies.map((_, i) => i)
  const sorted = [...indices].sort((a, b) => keys[a]!.breadth - keys[b]!.breadth || a - b)
  return {
    policies,
    order: sorted.every((p, i) => p === i) ? undefined : sorted,
    keyFunctions,
    costFunctions,
    needsIp: keys.some((k) => k.needsIp),
    needsUser: keys.some((k) => k.needsUser),
    needsRoute: keys.some((k) => k.needsRoute),
  }
}
