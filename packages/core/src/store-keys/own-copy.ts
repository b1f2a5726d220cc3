import { sha256Text128 } from './sha256.js'
import { encodeKeyPart, HASHED_PART_MARK } from './store-key.js'

/**
 * V8 makes a string of 13 or more characters cut from another (`header.slice(7, 40)`, `split(' ')[1]`) a
 * view that keeps the whole original alive: a key kept for its window would hold a 16 KB header per client.
 * A key kept (by the MemoryStore's table, by the HTTP handler's caches) is therefore copied to a string of its own, once, when the key arrives; shorter
 * strings are always copies already.
 *
 * The copy is a flat string, not a view of one (a slice of 13 or more characters would be a view again):
 * every later lookup compares the caller's key with the kept one, and V8 compares a view character by
 * character on its slow path (a few hundred CPU instructions per decision for a 20-character key). A JSON
 * round trip gives back the same UTF-16 code units, lone surrogates included, as a new flat string.
 */
export function ownCopy(key: string): string {
  return key.length < 13 ? key : (JSON.parse(JSON.stringify(key)) as string)
}

/**
 * The longest text the plan cache keeps as its key (an API key): a longer one is kept as its digest (see
 * {@link cacheKeyOf}), so an entry costs a bounded number of bytes whatever a client sends.
 */
export const MAX_KEPT_KEY_LENGTH = 128

/**
 * The longest store key a cache beside a store keeps (a RedisStore's built Redis keys and its block cache): a
 * longer one is built, or decided by Redis, every time. Keys that `@floodgate/core` builds are shorter unless
 * a configuration makes them long (each caller part longer than 200 characters is already a 45-character hash).
 */
export const MAX_KEPT_STORE_KEY_LENGTH = 256

/**
 * What a cache of texts from clients looks `text` up by: the text itself when it has at most
 * {@link MAX_KEPT_KEY_LENGTH} characters, else `%H` and 128 bits of the SHA-256 of its encoded form (24
 * characters). A text that itself starts with `%H` is hashed too, so two different texts never share an entry.
 * Cheap for a short text (a length and a character compared); the caller keeps an {@link ownCopy} of it.
 *
 * @example cacheKeyOf('sk_live_123') // 'sk_live_123'
 * @example cacheKeyOf('x'.repeat(15_000)) // '%H' + 22 characters
 */
export function cacheKeyOf(text: string): string {
  // `%H` by its character codes: a call of `startsWith` costs more than the rest of a lookup.
  return text.length <= MAX_KEPT_KEY_LENGTH && (text.charCodeAt(0) !== 37 || text.charCodeAt(1) !== 72)
    ? text
    : HASHED_PART_MARK + sha256Text128(encodeKeyPart(text))
}
