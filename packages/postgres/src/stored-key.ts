import { encodeKeyPart, HASHED_PART_MARK, sha256Text } from '@floodgate/core/internal'

/** A key longer than this is stored as its hash, so the primary key index stays small. */
export const MAX_STORED_KEY_LENGTH = 512

/** Whether PostgreSQL `text` holds the key as it is: well-formed UTF-16 (so UTF-8 keeps it), no NUL. */
const storable = (key: string) =>
  (key as string & { isWellFormed(): boolean }).isWellFormed() && !key.includes('\u0000')

/**
 * The key as the table stores it: the key itself, or `%H` and the base64url SHA-256 of its encoded form when
 * it is longer than {@link MAX_STORED_KEY_LENGTH}, holds a lone surrogate or a NUL (which `text` cannot
 * hold), or itself starts with `%H`. So a stored key starting with `%H` is always a hash, any other is the key
 * itself, and two different keys never share a row. Keys from `@floodgate/core` are well-formed and bounded
 * (each caller part at most 200 characters), so they are stored as they are.
 *
 * @example storedKey('api:ip|{ip:1.2.3.4}') // 'api:ip|{ip:1.2.3.4}'
 * @example storedKey('x'.repeat(600)) // '%H' + 43 characters
 */
export function storedKey(key: string): string {
  if (key.length <= MAX_STORED_KEY_LENGTH && !key.startsWith(HASHED_PART_MARK) && storable(key)) return key
  return HASHED_PART_MARK + sha256Text(encodeKeyPart(key))
}
