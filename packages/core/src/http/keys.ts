import type { RequestInfo } from './request-info.js'

/** A value a key function may return: one part, several, or nothing (the request is then keyed by its IP). */
export type KeyValue = string | number | readonly (string | number)[] | null | undefined

/** A function of the framework's request (Express `req`, Fastify `request`, Koa `ctx`) giving a key. */
export type KeyFunction<N = any> = (req: N, info: RequestInfo<N>) => KeyValue

/**
 * What a policy counts per:
 * - `'ip'`: the client address (IPv4-mapped IPv6 as IPv4, IPv6 grouped by its /64 or `ipv6Subnet`);
 * - `'user'`: the `user` option's answer; a request with no user is keyed by its IP instead;
 * - `'endpoint'`: the method and route pattern (`GET /users/:id`), never the raw path;
 * - `'global'`: one counter for everyone;
 * - a function of the request; when it returns nothing the request is keyed by its IP;
 * - an array of these, combined (`['user', 'endpoint']`: per user per endpoint).
 */
export type KeyPart<N = any> = 'ip' | 'user' | 'endpoint' | 'global' | KeyFunction<N>
export type KeySpec<N = any> = KeyPart<N> | readonly KeyPart<N>[]

/** What one request's keys are built from; computed once per request, shared by every policy. */
export interface KeyContext<N = any> {
  info: RequestInfo<N>
  /** The normalised address (`'1.2.3.4'`, `'2001:db8:0:1::/64'`), or `undefined` when unknown. */
  ip: string | undefined
  /** The `user` option's answer, already a string, or `undefined` when there is none. */
  user: string | undefined
}

/** Builds one policy's key part for a request; `undefined` means the client address was needed and unknown. */
export type Keyer<N = any> = (context: KeyContext<N>) => string | undefined

/**
 * Escape a value so that it cannot forge a separator: `%`, `|` and `,` become `%25`, `%7C` and `%2C`. So a
 * user id `1.2.3.4` (`user:1.2.3.4`) never meets the address `1.2.3.4` (`ip:1.2.3.4`), and a user id
 * `x|ip:1.2.3.4` stays one part.
 */
export function escapeKeyPart(value: string): string {
  if (value.indexOf('%') === -1 && value.indexOf('|') === -1 && value.indexOf(',') === -1) return value
  let out = ''
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!
    out += c === '%' ? '%25' : c === '|' ? '%7C' : c === ',' ? '%2C' : c
  }
  return out
}

/** The string form of a user id or key value, or `undefined` for none (`null`, `undefined`, `''`, `[]`). */
export function keyValueText(value: KeyValue): string | undefined {
  if (value === null || value === undefined) return undefined
  if (typeof value === 'string') return value === '' ? undefined : escapeKeyPart(value)
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined
    let out = ''
    for (let i = 0; i < value.length; i++) {
      const text = keyValueText(value[i] as string | number)
      out += i === 0 ? (text ?? '') : `,${text ?? ''}`
    }
    return out
  }
  return undefined
}

const ipPart = (context: KeyContext): string | undefined =>
  context.ip === undefined ? undefined : `ip:${context.ip}`

function compilePart<N>(part: KeyPart<N>): Keyer<N> {
  switch (part) {
    case 'ip':
      return ipPart
    case 'user':
      return (context) => (context.user === undefined ? ipPart(context) : `user:${context.user}`)
    case 'endpoint':
      // Before routing (Express or Koa app-level middleware) the pattern is unknown: every such request of a
      // method is one endpoint, `GET *`. Never the raw path, which would give each id its own bucket.
      return ({ info }) =>
        `endpoint:${info.method} ${info.route === undefined ? '*' : escapeKeyPart(info.route)}`
    case 'global':
      return () => 'global'
    default:
      return (context) => {
        const text = keyValueText(part(context.info.native, context.info))
        return text === undefined ? ipPart(context) : `key:${text}`
      }
  }
}

/** Compile a key spec once, at creation, into a function that builds the key's parts for a request. */
export function compileKey<N>(spec: KeySpec<N>): Keyer<N> {
  if (!Array.isArray(spec)) return compilePart(spec as KeyPart<N>)
  const parts = (spec as readonly KeyPart<N>[]).map(compilePart)
  if (parts.length === 1) return parts[0]!
  return (context) => {
    let key = ''
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!(context)
      if (part === undefined) return undefined
      key = i === 0 ? part : `${key}|${part}`
    }
    return key
  }
}

/** Which request facts a key spec reads, so the handler computes only those. */
export function keyNeeds(spec: KeySpec): { ip: boolean; user: boolean } {
  const parts = (Array.isArray(spec) ? spec : [spec]) as KeyPart[]
  // 'user' and functions fall back to the IP when they have no answer.
  return {
    ip: parts.some((p) => p !== 'endpoint' && p !== 'global'),
    user: parts.includes('user'),
  }
}
