import { ownCopy } from '../store-keys/own-copy.js'
import { boundKeyPart, encodeKeyPart, storeKey } from '../store-keys/store-key.js'
import type { Awaitable } from '../types.js'
import type { RequestInfo } from './request-info.js'

/** A value a key function may return: one part, several, or nothing (the request is then keyed by its IP). */
export type KeyValue = string | number | bigint | readonly (string | number | bigint)[] | null | undefined

/** A function of the framework's request (Express `req`, Fastify `request`, Koa `ctx`) giving a key; it may be async. */
export type KeyFunction<N = any> = (req: N, info: RequestInfo<N>) => Awaitable<KeyValue>

/**
 * What a policy counts per:
 * - `'ip'`: the client address (IPv4-mapped IPv6 as IPv4, IPv6 grouped by its /64 or `ipv6Subnet`);
 * - `'user'`: the `user` option's answer; a request with no user is keyed by its IP instead;
 * - `'endpoint'`: the method and route pattern (`GET /users/:id`), never the raw path;
 * - `'global'`: one counter for everyone;
 * - a function of the request (maybe async); when it returns nothing, throws, rejects or returns something
 *   that is not a key, the request is keyed by its IP;
 * - an array of these, combined (`['user', 'endpoint']`: per user per endpoint).
 */
export type KeyPart<N = any> = 'ip' | 'user' | 'endpoint' | 'global' | KeyFunction<N>
export type KeySpec<N = any> = KeyPart<N> | readonly KeyPart<N>[]

/** Marks a value a key function returned that is not a key (reported, then keyed by the IP). */
export const INVALID_KEY = Symbol('invalid key')

/**
 * The encoded text of a user id or key value; `undefined` for nothing (`null`, `undefined`, `''`, `[]`, an
 * array of nothing); {@link INVALID_KEY} for what is not a key (a boolean, an object, NaN, a nested array).
 * Numbers and bigints are their decimal text, so `7`, `7n` and `'7'` are one caller.
 */
export function keyValueText(value: unknown): string | undefined | typeof INVALID_KEY {
  if (value === null || value === undefined) return undefined
  if (typeof value === 'string') return value === '' ? undefined : boundKeyPart(encodeKeyPart(value))
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : INVALID_KEY
  if (typeof value === 'bigint') return String(value)
  if (!Array.isArray(value)) return INVALID_KEY
  let out = ''
  let something = false
  for (let i = 0; i < value.length; i++) {
    const item = value[i] as unknown
    if (Array.isArray(item)) return INVALID_KEY
    const text = keyValueText(item)
    if (text === INVALID_KEY) return INVALID_KEY
    if (text !== undefined) something = true
    out += i === 0 ? (text ?? '') : `,${text ?? ''}`
  }
  return something ? boundKeyPart(out) : undefined
}

/**
 * A usage-plan caller: its partition, and its store keys under the plan's policies once built (by slot:
 * 0 the rate bucket, 1 the quota), kept with the caller so a key whose plan is cached is not rebuilt.
 */
export interface PlanCaller {
  /** The caller as a key partition: `apikey:` and 128 bits of the key's SHA-256 (never the key), or `ip:...`. */
  readonly partition: string
  readonly keys: (string | undefined)[]
}

/** What one request's keys are built from: computed once per request, shared by every policy. */
export interface KeyFacts<N = any> {
  info: RequestInfo<N>
  /** The normalised address (`'1.2.3.4'`, `'2001:db8:0:1::/64'`), or `undefined` when unknown. */
  ip: string | undefined
  /** The `user` option's answer, encoded, or `undefined` when there is none (or it failed). */
  user: string | undefined
  /** Each key function's answer, encoded, by the function's index in {@link CompiledKey.functions}. */
  values: (string | undefined)[]
  /** The route as keys show it: the encoded pattern, `*` when unknown, `(no route)` when none matches. */
  route: string
  /** The usage-plan caller (`apikey:...`, or `ip:...` on the anonymous plan), when plans are on. */
  plan: PlanCaller | undefined
}

/**
 * Builds one policy's store key for a request under its scope: `scope{partition}rest`, where the partition is
 * the caller (the first of its user, key function or address parts; else the first part), so one caller's
 * policies share a Redis Cluster slot. `undefined` when the client address was needed and is unknown.
 */
export type Keyer<N = any> = (facts: KeyFacts<N>, scope: string) => string | undefined

/** A compiled key spec: its builder and what it needs computed per request. */
export interface CompiledKey<N = any> {
  keyer: Keyer<N>
  /** Whether a part may need the client address (`'ip'`, or a fallback to it). */
  needsIp: boolean
  needsUser: boolean
  needsRoute: boolean
  /** How shared its buckets are: 0 per caller (user or function), 1 per address, 2 per endpoint, 3 for all. */
  breadth: number
}

const ipPart = (facts: KeyFacts): string | undefined =>
  facts.ip === undefined ? undefined : `ip:${facts.ip}`

type PartBuilder<N> = (facts: KeyFacts<N>) => string | undefined

function partBuilder<N>(part: KeyPart<N>, functions: KeyFunction<N>[]): PartBuilder<N> {
  switch (part) {
    case 'ip':
      return ipPart
    case 'user':
      return (facts) => (facts.user === undefined ? ipPart(facts) : `user:${facts.user}`)
    case 'endpoint':
      return (facts) => `endpoint:${facts.info.method} ${facts.route}`
    case 'global':
      return () => 'global'
    default: {
      let index = functions.indexOf(part)
      if (index === -1) index = functions.push(part) - 1
      return (facts) => {
        const text = facts.values[index]
        return text === undefined ? ipPart(facts) : `key:${text}`
      }
    }
  }
}

/** How many store keys an address keyer keeps built; past it, it starts again from none. */
export const KEPT_KEYS = 4096

/**
 * The keyer of a policy keyed by address alone (the default), keeping the store keys it built by address: a
 * client's next request finds its key built, and hashed already. Building one (`ip|{ip:...}` is a string in
 * pieces that the store's Map lookup must first copy into one) costs most of a decision; keeping 4,096 of them
 * costs about 300 KB. Each is kept as a string of its own (`ownCopy`). The address is the handler's own
 * string for it, the same object on every request.
 */
function ipKeyer(): Keyer {
  let kept = new Map<string, string>()
  let keptScope: string | undefined
  return (facts, scope) => {
    const ip = facts.ip
    if (ip === undefined) return undefined
    if (scope !== keptScope) {
      kept = new Map()
      keptScope = scope
    }
    let key = kept.get(ip)
    if (key === undefined) {
      if (kept.size >= KEPT_KEYS) kept = new Map()
      key = ownCopy(storeKey(scope, `ip:${ip}`))
      kept.set(ip, key)
    }
    return key
  }
}

const breadthOf = (part: KeyPart): number =>
  part === 'global' ? 3 : part === 'endpoint' ? 2 : part === 'ip' ? 1 : 0

/**
 * Compile a key spec once, at creation. Key functions are collected into `functions` (shared by every
 * policy of a limiter, so a function used by two policies is called once per request). `keeps: false` builds
 * every key anew (an override's keyer, whose scope is not the policy's one scope).
 */
export function compileKey<N>(spec: KeySpec<N>, functions: KeyFunction<N>[], keeps = true): CompiledKey<N> {
  const parts = (Array.isArray(spec) ? spec : [spec]) as readonly KeyPart<N>[]
  const builders = parts.map((part) => partBuilder(part, functions))
  const breadths = parts.map(breadthOf)
  const breadth = Math.min(...breadths)
  // The caller: the narrowest part (the first of them), which becomes the partition.
  const lead = breadths.indexOf(breadth)
  const needs = {
    needsIp: parts.some((p) => p !== 'endpoint' && p !== 'global'),
    needsUser: parts.includes('user'),
    needsRoute: parts.includes('endpoint'),
    breadth,
  }
  if (keeps && parts.length === 1 && parts[0] === 'ip') return { ...needs, keyer: ipKeyer() }
  if (builders.length === 1) {
    const only = builders[0]!
    return {
      ...needs,
      keyer: (facts, scope) => {
        const part = only(facts)
        return part === undefined ? undefined : storeKey(scope, part)
      },
    }
  }
  return {
    ...needs,
    keyer: (facts, scope) => {
      const partition = builders[lead]!(facts)
      if (partition === undefined) return undefined
      let rest = ''
      for (let i = 0; i < builders.length; i++) {
        if (i === lead) continue
        const part = builders[i]!(facts)
        if (part === undefined) return undefined
        rest += `|${part}`
      }
      return storeKey(scope, partition, rest)
    },
  }
}

/** The route part of an endpoint key: the encoded pattern, `*` when unknown, `(no route)` when none matches. */
export function routeText(route: string | null | undefined): string {
  return route === undefined ? '*' : route === null ? '(no route)' : encodeKeyPart(route)
}
