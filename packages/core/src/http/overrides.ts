import { algorithmFromParams } from '../algorithms/from-params.js'
import { RateLimitConfigError } from '../errors.js'
import { encodeKeyPart } from '../store-keys/store-key.js'
import type { Algorithm, Store } from '../types.js'
import type { Keyer, KeyFacts } from './key-spec.js'

// Per-identifier overrides: a policy's `overrides` option (`{ alice: algorithm, '*@acme.com': algorithm,
// healthcheck: false }`) and the runtime `overrides.set/delete/list`, shared through the store. Matching runs in
// the identify stage (identify.ts): for each policy with overrides, the caller's identifier is looked up (one
// Map lookup; the wildcards scanned only on a miss, their answers cached), and an override changes that
// policy's store item (its algorithm, and a key scope of its own) or drops it (`false`). This file is one policy's
// table of overrides and how an identifier is matched; the limiter's registry, with the runtime changes kept in
// the store, is in override-registry.ts.

/** What an identifier gets under one policy: another algorithm, or `false`, not limited by that policy. */
export type Override = Algorithm | false

/**
 * A policy's overrides, by identifier pattern: an identifier (`'alice'`) or a pattern where `*` stands for any
 * run of characters (`'*@acme.com'`, `'10.0.*'`). The identifier is the policy's caller as the app knows it:
 * the `user` function's value, a key function's value (array parts joined by `,`), or the client address for
 * `'ip'` keys (normalised: `'203.0.113.7'`, an IPv6 client's `/64` as `'2001:db8:0:1::/64'`), never encoded.
 */
export type OverridesOption = Readonly<Record<string, Override>>

/** One override as `overrides.list()` shows it. */
export interface OverrideEntry {
  /** The policy's name. */
  policy: string
  /** The identifier or pattern. */
  pattern: string
  /** Its algorithm, or `false` (not limited by the policy). */
  override: Override
  /** Where it comes from: the policy's `overrides` option, or `overrides.set` (kept in the store). */
  source: 'options' | 'runtime'
}

/**
 * The overrides of a middleware, changed at runtime without a restart and kept in the store, so every server
 * sharing the store sees a change: at once on a MemoryStore (one process), within the store's interval on a
 * shared store (`settingsInterval`: 1 s by default on RedisStore and PostgresStore). Only a policy with an
 * `overrides` option (`overrides: {}` will do) can be overridden.
 */
export interface Overrides {
  /**
   * Give the callers `pattern` matches another algorithm under `policy`, or none at all (`false`). Checked now
   * (the policy, the pattern, the algorithm, and that the store can run it and keep settings): a bad argument
   * throws a `RateLimitConfigError` before anything is written. Resolves once the store holds it; this server
   * applies it at once.
   * @example await app.overrides.set('user', 'alice', slidingWindowCounter({ limit: 10_000, window: '1h' }))
   * @example await app.overrides.set('ip', '10.1.*', false)
   */
  set(policy: string, pattern: string, override: Override): Promise<void>
  /**
   * Remove the override of `pattern` set at runtime (an override of the `overrides` option then applies again).
   * @example await app.overrides.delete('user', 'alice')
   */
  delete(policy: string, pattern: string): Promise<void>
  /**
   * Every override in force, read from the store now: the runtime ones and the option's (unless a runtime one
   * replaces it), per policy in the order they match (exact, then longer patterns first).
   * @example for (const o of await app.overrides.list()) console.log(o.policy, o.pattern, o.override)
   */
  list(): Promise<OverrideEntry[]>
}

/** The longest pattern. */
export const MAX_PATTERN_LENGTH = 256
/** The most overrides of one policy (option and runtime), and the most of them with a `*`. */
export const MAX_OVERRIDES = 10_000
export const MAX_WILDCARDS = 100
/** How many identifiers' wildcard answers a policy keeps; past it, it starts again from none. */
export const KEPT_WILDCARD_ANSWERS = 4096

const PATTERN_EXPECTED = `an identifier or a pattern with * for any run of characters ('alice', '*@acme.com'), 1 to ${MAX_PATTERN_LENGTH} characters`
const OVERRIDE_EXPECTED =
  'an algorithm made by a factory of @floodgate/core (slidingWindowCounter({...}), tokenBucket({...}), ...), or false'

/** What an identifier resolves to under a policy: an algorithm and the key scope of its override, or dropped. */
export type Resolved = { readonly algorithm: Algorithm; readonly scope: string } | false

const isAlgorithm = (v: unknown): v is Algorithm =>
  typeof v === 'object' && v !== null && typeof (v as Algorithm).consume === 'function'

/** Check a pattern; throws a `RateLimitConfigError` naming `option`. */
export function checkPattern(pattern: unknown, option: string): string {
  if (typeof pattern !== 'string' || pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH) {
    throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', option, pattern, PATTERN_EXPECTED)
  }
  return pattern
}

/**
 * Check an override: `false`, or an algorithm a store can keep (its kind and parameters make it again) and
 * `store` can run. Throws a `RateLimitConfigError` naming `option`.
 */
export function checkOverride(value: unknown, option: string, store: Store): Override {
  if (value === false) return false
  if (!isAlgorithm(value)) {
    throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', option, value, OVERRIDE_EXPECTED)
  }
  algorithmFromParams(value, option)
  store.checkAlgorithm?.(value)
  return value
}

/** An override as the store keeps it: `false`, or the algorithm's kind, parameters and id, as JSON. */
export function serializeOverride(override: Override): string {
  return override === false
    ? 'false'
    : JSON.stringify({ kind: override.kind, params: override.params, id: override.id })
}

/** An override the store kept, made again; throws when it is not one. */
export function parseOverride(text: string, option: string): Override {
  if (text === 'false') return false
  let spec: unknown
  try {
    spec = JSON.parse(text)
  } catch {
    spec = text
  }
  if (typeof spec !== 'object' || spec === null) {
    throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', option, text, OVERRIDE_EXPECTED)
  }
  return algorithmFromParams(spec as Algorithm, option)
}

/**
 * The identifier a request is known by under overrides, as the app gave it (never encoded): a string as it is,
 * a number or bigint as its decimal text, an array's parts joined by `,`; `undefined` for nothing or not a key.
 */
export function idText(value: unknown): string | undefined {
  if (value === null || value === undefined) return undefined
  if (typeof value === 'string') return value === '' ? undefined : value
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined
  if (typeof value === 'bigint') return String(value)
  if (!Array.isArray(value)) return undefined
  let out = ''
  let something = false
  for (let i = 0; i < value.length; i++) {
    const item = value[i] as unknown
    if (Array.isArray(item)) return undefined
    const text = item === null || item === undefined || item === '' ? '' : idText(item)
    if (text === undefined) return undefined
    if (text !== '') something = true
    out += i === 0 ? text : `,${text}`
  }
  return something ? out : undefined
}

/** What the identifier of a request is read from: the facts the identify stage kept. */
export interface IdFacts extends KeyFacts {
  /** The `user` function's value, as the app gave it (see {@link idText}), when a policy has overrides. */
  userId: string | undefined
  /** Each key function's value, as the app gave it, by the function's index. */
  ids: (string | undefined)[]
}

/** A wildcard pattern, compiled: its parts between the stars. */
interface Wildcard {
  readonly pattern: string
  readonly parts: readonly string[]
  readonly resolved: Resolved
}

/** Whether `id` matches a pattern's parts (the parts between its `*`s): no regular expression, linear scans. */
function globMatch(parts: readonly string[], id: string): boolean {
  const last = parts.length - 1
  const first = parts[0]!
  const end = parts[last]!
  if (id.length < first.length + end.length || !id.startsWith(first) || !id.endsWith(end)) return false
  let at = first.length
  const limit = id.length - end.length
  for (let i = 1; i < last; i++) {
    const part = parts[i]!
    const found = id.indexOf(part, at)
    if (found === -1 || found + part.length > limit) return false
    at = found + part.length
  }
  return true
}

/** The order overrides match in: exact first, then longer patterns, then fewer stars, then by text. */
const precedence = (a: string, b: string): number =>
  b.length - a.length || a.split('*').length - b.split('*').length || (a < b ? -1 : a > b ? 1 : 0)

/** One policy's overrides, as one request reads them: replaced whole when they change. */
interface Table {
  readonly exact: ReadonlyMap<string, Resolved>
  readonly wildcards: readonly Wildcard[]
  /**
   * What a request looks up, once: the exact identifiers, and the wildcard answers of identifiers seen lately
   * (`null`: no pattern matched), at most {@link KEPT_WILDCARD_ANSWERS} of them beyond the exact ones.
   */
  lookup: Map<string, Resolved | null>
}

/** One policy's overrides: the option's, and the runtime ones over them. */
export class PolicyOverrides<N = any> {
  private table: Table
  /** The runtime overrides, by pattern (from the store). */
  runtime = new Map<string, Override>()

  constructor(
    readonly name: string,
    /** The policy's key scope (`prefix:name|`): an override's scope is `prefix:name|=pattern|`. */
    readonly scope: string,
    readonly statics: ReadonlyMap<string, Override>,
    /** The request's identifier under this policy. */
    readonly idOf: (facts: IdFacts) => string | undefined,
    /** The policy's key builder, keeping no keys (an override's scope is not the policy's). */
    readonly keyer: Keyer<N>,
  ) {
    this.table = this.compile()
  }

  /** The override of the request's caller: its algorithm and scope, `false`, or `undefined` for none. */
  resolve(facts: IdFacts): Resolved | undefined {
    const id = this.idOf(facts)
    if (id === undefined) return undefined
    const table = this.table
    const known = table.lookup.get(id)
    if (known !== undefined) return known === null ? undefined : known
    if (table.wildcards.length === 0) return undefined
    let found: Resolved | null = null
    for (const wildcard of table.wildcards) {
      if (globMatch(wildcard.parts, id)) {
        found = wildcard.resolved
        break
      }
    }
    if (id.length <= MAX_PATTERN_LENGTH) {
      if (table.lookup.size >= table.exact.size + KEPT_WILDCARD_ANSWERS) table.lookup = new Map(table.exact)
      table.lookup.set(id, found)
    }
    return found ?? undefined
  }

  /** Every override in force, in the order they match. */
  entries(): OverrideEntry[] {
    const merged = new Map<string, OverrideEntry>()
    for (const [pattern, override] of this.statics)
      merged.set(pattern, { policy: this.name, pattern, override, source: 'options' })
    for (const [pattern, override] of this.runtime)
      merged.set(pattern, { policy: this.name, pattern, override, source: 'runtime' })
    const exact = [...merged.values()].filter((e) => !e.pattern.includes('*'))
    const wild = [...merged.values()].filter((e) => e.pattern.includes('*'))
    exact.sort((a, b) => (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0))
    wild.sort((a, b) => precedence(a.pattern, b.pattern))
    return [...exact, ...wild]
  }

  /** Take the runtime overrides the store holds now. */
  update(runtime: Map<string, Override>): void {
    this.runtime = runtime
    this.table = this.compile()
  }

  private compile(): Table {
    const exact = new Map<string, Resolved>()
    const wildcards: Wildcard[] = []
    for (const { pattern, override } of this.entries()) {
      const resolved: Resolved =
        override === false
          ? false
          : { algorithm: override, scope: `${this.scope}=${encodeKeyPart(pattern)}|` }
      if (pattern.includes('*')) wildcards.push({ pattern, parts: pattern.split('*'), resolved })
      else exact.set(pattern, resolved)
    }
    return { exact, wildcards, lookup: new Map(exact) }
  }
}

/** A policy's `overrides` option, with the policy's compiled definition. */
