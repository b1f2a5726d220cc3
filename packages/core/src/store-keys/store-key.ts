import { sha256Text } from './sha256.js'

/**
 * How store keys are built from what callers and clients send, in one place for every store.
 *
 * A store key is `scope{partition}rest`:
 * - `scope` is fixed by configuration (a limiter's `prefix`, a policy's name), never by a client;
 * - `partition` is the caller (a user id, an address, a key function's answer), encoded so that it holds no
 *   brace: Redis Cluster hashes only the part in braces, so every policy of one caller sits on one slot;
 * - `rest` holds further parts of a composite key (`|endpoint:GET /users/:id`), encoded the same way.
 *
 * Encoding is injective (two different inputs never give one key) and gives well-formed UTF-16, so a store
 * that writes UTF-8 (Redis, PostgreSQL) keeps apart what the memory store keeps apart.
 */

/** An encoded part longer than this is replaced by its hash, so a huge key costs a bounded amount of memory. */
export const MAX_KEY_PART_LENGTH = 200

/** What a hashed part starts with. Encoding turns every `%` into `%25`, so no encoded part starts so. */
export const HASHED_PART_MARK = '%H'

const HEX = '0123456789ABCDEF'
const hex4 = (code: number) =>
  HEX[(code >> 12) & 15]! + HEX[(code >> 8) & 15]! + HEX[(code >> 4) & 15]! + HEX[code & 15]!

/** Whether `code` (a UTF-16 unit) must be escaped: `%`, `|`, `,`, `{`, `}` or a surrogate. */
const special = (code: number) =>
  code === 37 || code === 124 || code === 44 || code === 123 || code === 125 || (code & 0xf800) === 0xd800

/**
 * Encode one part of a key: `%`, `|`, `,`, `{` and `}` become `%25`, `%7C`, `%2C`, `%7B`, `%7D`, and a lone
 * surrogate (half a UTF-16 pair, which UTF-8 cannot hold) becomes `%uD800`. A user id `x|ip:1.2.3.4` stays
 * one part, and `"u\ud800"` and `"u\ufffd"` stay two keys on every store.
 *
 * @example encodeKeyPart('a|b') // 'a%7Cb'
 */
export function encodeKeyPart(value: string): string {
  let i = 0
  while (i < value.length && !special(value.charCodeAt(i))) i++
  if (i === value.length) return value
  let out = value.slice(0, i)
  for (; i < value.length; i++) {
    const code = value.charCodeAt(i)
    if (!special(code)) {
      out += value[i]
    } else if (code < 0xd800) {
      out += code === 37 ? '%25' : code === 124 ? '%7C' : code === 44 ? '%2C' : code === 123 ? '%7B' : '%7D'
    } else {
      const next = value.charCodeAt(i + 1)
      if (code < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
        out += value[i]! + value[i + 1]! // a whole pair: kept as is
        i++
      } else {
        out += `%u${hex4(code)}`
      }
    }
  }
  return out
}

/**
 * An encoded part, bounded: itself when at most {@link MAX_KEY_PART_LENGTH} characters, else `%H` and the
 * base64url SHA-256 of it. The two forms never meet: an encoded part never starts with `%H`.
 */
export function boundKeyPart(encoded: string): string {
  return encoded.length <= MAX_KEY_PART_LENGTH ? encoded : HASHED_PART_MARK + sha256Text(encoded)
}

/** A caller's value as a bounded, encoded partition. */
export const partitionOf = (value: string): string => boundKeyPart(encodeKeyPart(value))

/**
 * The store key of a caller under a scope: `scope{partition}rest`, where `scope` is configuration (it must
 * hold no brace) and `partition` and `rest` are already encoded and bounded.
 *
 * @example storeKey('login:', partitionOf('user:123')) // 'login:{user:123}'
 */
export function storeKey(scope: string, partition: string, rest = ''): string {
  return `${scope}{${partition}}${rest}`
}
