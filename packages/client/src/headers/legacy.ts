import { argument, headerSource, time } from '../schema.js'
import { legacyResetMs } from './numbers.js'
import type { HeaderSource } from './source.js'
import { readThreeFields } from './three-fields.js'
import type { PolicyInfo } from './types.js'

/**
 * The `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` headers from before the drafts.
 * Servers disagree on the reset: an epoch time in seconds (GitHub, express-rate-limit, Floodgate's
 * `legacy`), in ms, or delta seconds (@fastify/rate-limit). A value larger than a year of seconds is an
 * epoch time; anything smaller is a delta. `undefined` when none of the three is readable.
 *
 * @example parseLegacy(new Headers({ 'x-ratelimit-reset': '1719642600' }), Date.now())?.resetMs
 */
export function parseLegacy(given: HeaderSource, at?: number): PolicyInfo | undefined {
  const headers = argument('parseLegacy.headers', given, headerSource)
  const now = argument('parseLegacy.now', at, time)
  const fields = readThreeFields(headers, 'x-ratelimit', legacyResetMs, now)
  return fields === undefined
    ? undefined
    : { mode: 'legacy', name: undefined, ...fields, windowMs: undefined }
}
