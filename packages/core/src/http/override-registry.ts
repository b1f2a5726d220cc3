import { RateLimitConfigError } from '../errors.js'
import type { Store, StoreSettings } from '../types.js'
import { compileKey, type KeyFunction, type KeyPart } from './key-spec.js'
import type { ParsedRateLimitOptions } from './options/schema.js'
import {
  checkOverride,
  checkPattern,
  type IdFacts,
  MAX_OVERRIDES,
  MAX_WILDCARDS,
  type Override,
  type Overrides,
  type OverridesOption,
  PolicyOverrides,
  parseOverride,
  serializeOverride,
} from './overrides.js'
import { type CostFunction, compilePolicies, type PolicyDef } from './policies.js'
import { basePolicyDefs } from './policy-defs.js'

// A limiter's overrides, as a whole: each policy's `overrides` option compiled into its table (overrides.ts),
// and the runtime `overrides.set/delete/list` (`middleware.overrides`), kept in the store's settings under the
// limiter's prefix so that every server sharing the store sees a change: read when the first request arrives,
// then watched.

export interface OverriddenPolicy<N> {
  readonly def: PolicyDef<N>
  readonly overrides: OverridesOption
  /** Where the option is (`limits[0].overrides`, `overrides`), for messages. */
  readonly option: string
}

/** The overrides of one limiter, compiled at creation. */
export interface OverridesRegistry<N> {
  /** The overrides of the policy `name`, when it has an `overrides` option. */
  of(name: string): PolicyOverrides<N> | undefined
  /** The first time: start watching the store; a promise while its first read is on its way. */
  ready(): Promise<void> | undefined
  /** The runtime interface (`middleware.overrides`). */
  readonly control: Overrides
}

/** The identifier of a request under a policy keyed by `spec`: its caller, as the app gave it. */
function idReader<N>(
  spec: PolicyDef<N>['key'],
  functions: readonly KeyFunction<N>[],
  option: string,
): (facts: IdFacts) => string | undefined {
  const parts = (Array.isArray(spec) ? spec : [spec]) as readonly KeyPart<N>[]
  const breadth = (p: KeyPart<N>) => (p === 'global' ? 3 : p === 'endpoint' ? 2 : p === 'ip' ? 1 : 0)
  const lead = parts.reduce((best, p) => (breadth(p) < breadth(best) ? p : best), parts[0]!)
  if (lead === 'global' || lead === 'endpoint') {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      option,
      spec,
      "a policy keyed per caller ('ip', 'user' or a key function): overrides match a caller's identifier",
    )
  }
  if (lead === 'ip') return (facts) => facts.ip
  if (lead === 'user') return (facts) => facts.userId ?? facts.ip
  const index = functions.indexOf(lead as KeyFunction<N>)
  return (facts) => facts.ids[index] ?? facts.ip
}

/**
 * Compile a limiter's overrides: each policy's option checked (patterns, algorithms, and that `store` runs
 * them), and the runtime ones read from the store under `name` (`overrides:` and the limiter's prefix) once the
 * first request arrives, then watched.
 */
export function compileOverrides<N>(parts: {
  policies: readonly OverriddenPolicy<N>[]
  /** The limiter's key functions, in the order its policies' keyers index them. */
  keyFunctions: readonly KeyFunction<N>[]
  store: Store
  name: string
  report: (error: unknown) => void
}): OverridesRegistry<N> {
  const { store, name, report } = parts
  const tables = new Map<string, PolicyOverrides<N>>()
  for (const { def, overrides, option } of parts.policies) {
    if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
      throw new RateLimitConfigError(
        'ERR_FLOODGATE_INVALID_OPTION',
        option,
        overrides,
        "an object of identifier patterns and algorithms or false ({ alice: tokenBucket({...}), '*@acme.com': false })",
      )
    }
    const statics = new Map<string, Override>()
    for (const [pattern, value] of Object.entries(overrides)) {
      checkPattern(pattern, `${option} key`)
      statics.set(pattern, checkOverride(value, `${option}['${pattern}']`, store))
    }
    checkCounts(statics, option)
    const keyFunctions = [...parts.keyFunctions]
    const idOf = idReader(def.key as PolicyDef<N>['key'], keyFunctions, option)
    const { keyer } = compileKey(def.key as Exclude<PolicyDef<N>['key'], symbol>, keyFunctions, false)
    tables.set(def.name, new PolicyOverrides<N>(def.name, def.scope, statics, idOf, keyer))
  }

  let started = false
  let loading: Promise<void> | undefined
  let version = -1

  /** Take the store's document (unless an older one than the last taken). */
  function apply(settings: StoreSettings): void {
    if (settings.version < version) return
    version = settings.version
    const byPolicy = new Map<string, Map<string, Override>>()
    for (const [field, value] of Object.entries(settings.fields)) {
      let policy: unknown
      let pattern: unknown
      try {
        ;[policy, pattern] = JSON.parse(field) as [unknown, unknown]
      } catch {
        continue
      }
      if (typeof policy !== 'string' || !tables.has(policy) || typeof pattern !== 'string') continue
      try {
        const override = parseOverride(value, `overrides['${policy}']['${pattern}']`)
        let runtime = byPolicy.get(policy)
        if (runtime === undefined) {
          runtime = new Map()
          byPolicy.set(policy, runtime)
        }
        runtime.set(pattern, override)
      } catch (error) {
        report(error)
      }
    }
    for (const [policy, table] of tables) table.update(byPolicy.get(policy) ?? new Map())
  }

  function ready(): Promise<void> | undefined {
    if (started) return loading
    started = true
    if (store.watchSettings === undefined) return undefined
    let loaded = false
    let done: () => void = () => {}
    store.watchSettings(name, {
      change(settings) {
        apply(settings)
        loaded = true
        done()
      },
      error(error) {
        report(error)
        loaded = true
        done()
      },
    })
    if (loaded) return undefined
    loading = new Promise<void>((resolve) => {
      done = () => {
        loading = undefined
        resolve()
      }
    })
    return loading
  }

  function tableOf(policy: unknown, method: string): PolicyOverrides<N> {
    const table = typeof policy === 'string' ? tables.get(policy) : undefined
    if (table !== undefined) return table
    throw unknownPolicy(method, policy, [...tables.keys()])
  }

  function writer(method: string): (field: string, value: string | undefined) => Promise<void> {
    const write = store.writeSettings?.bind(store)
    if (write === undefined) {
      const storeName = (store as { constructor?: { name?: string } }).constructor?.name || 'this store'
      throw new RateLimitConfigError(
        'ERR_FLOODGATE_INVALID_OPTION',
        `overrides.${method}`,
        storeName,
        'called on a middleware whose store keeps settings (MemoryStore, RedisStore, PostgresStore, SyncedStore)',
        `${storeName} has no writeSettings: the \`overrides\` options still apply, but nothing can change at runtime`,
      )
    }
    return (field, value) => Promise.resolve(write(name, field, value)).then(apply)
  }

  const control: Overrides = {
    set(policy, pattern, override) {
      const table = tableOf(policy, 'set')
      checkPattern(pattern, 'overrides.set(pattern)')
      const checked = checkOverride(override, 'overrides.set(override)', store)
      const next = new Map(table.runtime).set(pattern, checked)
      const merged = new Map([...table.statics, ...next])
      checkCounts(merged, 'overrides.set')
      return writer('set')(JSON.stringify([policy, pattern]), serializeOverride(checked))
    },
    delete(policy, pattern) {
      tableOf(policy, 'delete')
      checkPattern(pattern, 'overrides.delete(pattern)')
      return writer('delete')(JSON.stringify([policy, pattern]), undefined)
    },
    async list() {
      if (store.readSettings) apply(await store.readSettings(name))
      return [...tables.values()].flatMap((table) => table.entries())
    },
  }

  return { of: (policy) => tables.get(policy), ready, control }
}

function checkCounts(overrides: ReadonlyMap<string, Override>, option: string): void {
  const wildcards = [...overrides.keys()].filter((p) => p.includes('*')).length
  if (overrides.size > MAX_OVERRIDES || wildcards > MAX_WILDCARDS) {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      option,
      `${overrides.size} overrides, ${wildcards} with *`,
      `at most ${MAX_OVERRIDES} overrides per policy, at most ${MAX_WILDCARDS} of them with *`,
    )
  }
}

/**
 * The overrides of a limiter's policies that have an `overrides` option (`limits[i].overrides`, or the short
 * form's `overrides`); `undefined` when none has: then no step, no lookup.
 */
export function compileLimiterOverrides<N>(
  o: ParsedRateLimitOptions,
  store: Store,
  report: (error: unknown) => void,
): OverridesRegistry<N> | undefined {
  const specs = (o.limits ?? (o.overrides === undefined ? [] : [{ overrides: o.overrides }])) as {
    overrides?: OverridesOption
  }[]
  if (!specs.some((spec) => spec.overrides !== undefined)) return undefined
  const defs = basePolicyDefs<N>(o)
  if (o.limits === undefined && defs.length === (o.tiers?.length ?? 0)) {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      'rateLimit.overrides',
      o.overrides,
      'left out when no short-form policy is given (`limit`, `window` or `algorithm`); give `overrides` to a policy in `limits`',
    )
  }
  const { keyFunctions } = compilePolicies<N>(defs, o.cost as number | CostFunction<N>)
  const policies: OverriddenPolicy<N>[] = []
  specs.forEach((spec, i) => {
    if (spec.overrides === undefined) return
    const option = o.limits ? `rateLimit.limits[${i}].overrides` : 'rateLimit.overrides'
    if (i >= 30) {
      throw new RateLimitConfigError(
        'ERR_FLOODGATE_INVALID_OPTION',
        option,
        spec.overrides,
        'on one of the first 30 policies of `limits`',
      )
    }
    policies.push({ def: defs[i]!, overrides: spec.overrides, option })
  })
  return compileOverrides<N>({
    policies,
    keyFunctions,
    store,
    name: `overrides:${o.prefix}`,
    report,
  })
}

/** The overrides of a middleware with none: `list()` is empty, and `set` and `delete` say how to have some. */
export function noOverrides(): Overrides {
  const none = (method: string) => (policy: unknown) => {
    throw unknownPolicy(method, policy, [])
  }
  return { set: none('set'), delete: none('delete'), list: () => Promise.resolve([]) }
}

/** `overrides.set` or `.delete` given a policy with no `overrides` option: the names it could have given. */
function unknownPolicy(method: string, policy: unknown, names: readonly string[]): RateLimitConfigError {
  return new RateLimitConfigError(
    'ERR_FLOODGATE_INVALID_OPTION',
    `overrides.${method}(policy)`,
    policy,
    names.length === 0
      ? 'the name of a policy with an `overrides` option (this middleware has none: give a policy `overrides: {}`)'
      : `the name of a policy with an \`overrides\` option (${names.map((n) => `'${n}'`).join(', ')})`,
  )
}
