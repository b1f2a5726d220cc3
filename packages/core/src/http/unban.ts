import { RateLimitConfigError } from '../errors.js'
import type { Store } from '../types.js'
import { ipKey, parseIp } from './ip.js'
import {
  compileKey,
  INVALID_KEY,
  type KeyFacts,
  type KeyFunction,
  type KeyPart,
  type KeyValue,
  keyValueText,
  routeText,
} from './key-spec.js'
import type { Policy } from './policies.js'
import type { RequestInfo } from './request-info.js'

/** Options of `unban`. */
export interface UnbanOptions {
  /**
   * The policy whose ban to lift (its `name`). Without it, every policy with a `ban` that the identifier fits
   * is unbanned for it.
   * @default every policy with a `ban`
   * @example 'login'
   */
  policy?: string
}

/**
 * Lift a ban early: `unban('203.0.113.7')`, `unban(userId, { policy: 'user' })`. The identifier is the
 * policy's key value as the app knows it, before Floodgate builds its store key:
 * - `'ip'`: the client address (an IPv6 address is lifted for its whole `/64`, or `ipv6Subnet`, as it is keyed);
 * - `'user'`: the user id `user` returns (an address also lifts the requests that had no user, keyed by it);
 * - a key function: the value it returns (an address too, as for `'user'`);
 * - `'global'`: anything (there is one key);
 * - `'endpoint'`: the method and route pattern, `'GET /export'`;
 * - several parts (`['user', 'endpoint']`): an array of one value per part, in the key's order:
 *   `unban(['alice', 'GET /export'], { policy: 'export' })`.
 * Resolves when the store has forgotten the ban (and the refusals counted toward one) on every server;
 * rejects with a `RateLimitConfigError` for an identifier that fits no policy with a ban, or with the store's
 * error when it cannot be reached.
 */
export type Unban = (key: KeyValue | readonly KeyValue[], options?: UnbanOptions) => Promise<void>

/** A policy's store keys for an identifier, as its key spec builds them; none when it does not fit. */
function storeKeysOf(policy: Policy, id: unknown, ipv6Subnet: number): string[] {
  const spec = policy.key ?? 'ip'
  const parts = (Array.isArray(spec) ? spec : [spec]) as readonly KeyPart[]
  let values: readonly unknown[]
  if (parts.length === 1) values = [id]
  else if (Array.isArray(id) && id.length === parts.length) values = id
  else return []
  const functions: KeyFunction[] = []
  const { keyer } = compileKey(parts, functions)
  const address = (value: unknown) => {
    const parsed = typeof value === 'string' ? parseIp(value) : undefined
    return parsed === undefined ? undefined : ipKey(parsed, ipv6Subnet)
  }
  const facts: KeyFacts = {
    info: { ip: undefined, method: '', route: undefined, path: '', headers: {}, native: undefined },
    ip: undefined,
    user: undefined,
    values: new Array(functions.length).fill(undefined),
    route: '*',
    plan: undefined,
  }
  // An address among a key function's or the user's values: what the request was keyed by without them.
  let fallback: string | undefined
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    const value = values[i]
    if (part === 'ip') {
      facts.ip = address(value)
      if (facts.ip === undefined) return []
    } else if (part === 'endpoint') {
      const text = typeof value === 'string' ? value : ''
      const space = text.indexOf(' ')
      if (space <= 0) return []
      ;(facts.info as RequestInfo).method = text.slice(0, space)
      facts.route = routeText(text.slice(space + 1))
    } else if (part !== 'global') {
      const text = keyValueText(value)
      if (text === INVALID_KEY || text === undefined) return []
      if (part === 'user') facts.user = text
      else facts.values[functions.indexOf(part)] = text
      fallback ??= address(value)
    }
  }
  const keys: string[] = []
  const primary = keyer(facts, policy.scope)
  if (primary !== undefined) keys.push(primary)
  if (fallback !== undefined && facts.ip === undefined) {
    const byAddress: KeyFacts = {
      ...facts,
      ip: fallback,
      user: undefined,
      values: facts.values.map(() => undefined),
    }
    const key = keyer(byAddress, policy.scope)
    if (key !== undefined && !keys.includes(key)) keys.push(key)
  }
  return keys
}

/** Compile a limiter's `unban`, over its store (and its fallback store) and its policies with a ban. */
export function compileUnban(parts: {
  stores: readonly Store[]
  policies: readonly Policy[]
  ipv6Subnet: number | false
}): Unban {
  const { stores, policies } = parts
  const subnet = parts.ipv6Subnet === false ? 128 : parts.ipv6Subnet
  const names = policies.map((p) => p.name)
  return async (id, options) => {
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', 'unban.options', options, '{ policy }')
    }
    const named = options?.policy
    if (named !== undefined && !names.includes(named)) {
      throw new RateLimitConfigError(
        'ERR_FLOODGATE_INVALID_OPTION',
        'unban.options.policy',
        named,
        names.length === 0
          ? 'the name of a policy with a `ban`, and this limiter has none'
          : `the name of a policy with a \`ban\` (${names.map((n) => `'${n}'`).join(', ')})`,
      )
    }
    const keys = new Set<string>()
    for (const policy of policies) {
      if (named !== undefined && policy.name !== named) continue
      for (const key of storeKeysOf(policy, id, subnet)) keys.add(key)
    }
    if (keys.size === 0) {
      throw new RateLimitConfigError(
        'ERR_FLOODGATE_INVALID_KEY',
        'unban.key',
        id,
        'what a policy with a `ban` keys on: an address for `ip`, a user id for `user`, a key function\'s value, `"GET /route"` for `endpoint`, or an array of one value per part for a key of several parts',
      )
    }
    await Promise.all(stores.flatMap((store) => [...keys].map((key) => store.unban!(key))))
  }
}

/** A policy with a `ban` needs stores that keep bans (`unban`): checked at creation, never on a request. */
export function checkBans(store: Store, fallback: Store | undefined): void {
  const expected =
    'a store that keeps bans (one with unban: the MemoryStore, RedisStore or PostgresStore), since a policy has `ban`'
  if (typeof store.unban !== 'function' || typeof store.consumeAll !== 'function') {
    throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', 'rateLimit.store', store, expected)
  }
  if (fallback && (typeof fallback.unban !== 'function' || typeof fallback.consumeAll !== 'function')) {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      'rateLimit.failMode.fallback',
      fallback,
      expected,
    )
  }
}
