/**
 * A lenient reader of Structured Fields (RFC 8941) Lists and Dictionaries, enough for the rate-limit
 * headers: `"ip";r=42;t=30, "user";r=998` (a List) and `limit=100, remaining=42, reset=30` (a Dictionary).
 * A member it cannot read is skipped rather than failing the whole field, and at most
 * {@link MAX_MEMBERS} members are read.
 */

/** A bare item: a string or token (as a string), a number, a boolean, or a byte sequence (its base64 text). */
export type BareItem = string | number | boolean

export interface Member {
  /** The dictionary key (`limit` in `limit=100`); `undefined` for a list item. */
  readonly key: string | undefined
  readonly value: BareItem
  /** Parameters, keys in lower case: `r`, `t` in `"ip";r=42;t=30`. */
  readonly params: ReadonlyMap<string, BareItem>
}

export const MAX_MEMBERS = 64

const KEY = /^[a-z*][a-z0-9_\-.*]*$/
const TOKEN = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*$/
const NUMBER = /^-?\d{1,15}(?:\.\d{1,3})?$/
const BYTES = /^:([A-Za-z0-9+/=]*):$/

/** Split on `separator` outside double-quoted strings. */
function split(text: string, separator: string): string[] {
  const parts: string[] = []
  let start = 0
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '\\') i++
      else if (c === '"') quoted = false
    } else if (c === '"') quoted = true
    else if (c === separator) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

/** The index of the first `=` outside a quoted string, or -1. */
function equalsAt(text: string): number {
  const quote = text.indexOf('"')
  const eq = text.indexOf('=')
  return quote >= 0 && quote < eq ? -1 : eq
}

function unquote(text: string): string | undefined {
  let out = ''
  for (let i = 1; i < text.length; i++) {
    const c = text[i]!
    if (c === '\\') {
      const next = text[++i]
      if (next !== '"' && next !== '\\') return undefined
      out += next
    } else if (c === '"') return i === text.length - 1 ? out : undefined
    else out += c
  }
  return undefined
}

/** A bare item, or `undefined` when `text` is not one. */
export function parseBareItem(text: string): BareItem | undefined {
  const t = text.trim()
  if (t.startsWith('"')) return unquote(t)
  if (t === '?1') return true
  if (t === '?0') return false
  if (NUMBER.test(t)) return Number(t)
  const bytes = BYTES.exec(t)
  if (bytes) return bytes[1]!
  return TOKEN.test(t) ? t : undefined
}

function parseParams(segments: readonly string[]): Map<string, BareItem> | undefined {
  const params = new Map<string, BareItem>()
  for (const segment of segments) {
    const eq = equalsAt(segment)
    const key = (eq < 0 ? segment : segment.slice(0, eq)).trim().toLowerCase()
    if (!KEY.test(key)) return undefined
    const value = eq < 0 ? true : parseBareItem(segment.slice(eq + 1))
    if (value === undefined) return undefined
    params.set(key, value)
  }
  return params
}

/** The members of a List or Dictionary field. */
export function parseMembers(field: string): Member[] {
  const members: Member[] = []
  for (const part of split(field, ',')) {
    if (members.length >= MAX_MEMBERS) break
    const [head = '', ...rest] = split(part, ';')
    const params = parseParams(rest)
    if (params === undefined || head.trim() === '') continue
    const eq = equalsAt(head)
    const key = eq < 0 ? undefined : head.slice(0, eq).trim().toLowerCase()
    if (key !== undefined && KEY.test(key)) {
      const value = parseBareItem(head.slice(eq + 1))
      if (value !== undefined) members.push({ key, value, params })
      continue
    }
    const value = eq < 0 ? parseBareItem(head) : undefined
    if (value !== undefined) members.push({ key: undefined, value, params })
  }
  return members
}

/** A parameter or value as a number >= 0, else `undefined`. */
export const nonNegative = (item: BareItem | undefined): number | undefined =>
  typeof item === 'number' && Number.isFinite(item) && item >= 0 ? item : undefined
