import { createHash } from 'node:crypto'

/** Keys longer than this are replaced by a hash, so that a huge key costs a bounded amount of memory. */
export const MAX_KEY_LENGTH = 200

/** A key bounded in length: itself when short, else `#` and the base64url SHA-256 of it (never collides with a short key of that shape by accident). */
export function boundKey(key: string): string {
  return key.length > MAX_KEY_LENGTH ? `#${createHash('sha256').update(key).digest('base64url')}` : key
}
