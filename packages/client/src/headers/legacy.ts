import { parseDecimal, resetMs, toCount } from './numbers.js'
import { type HeaderSource, headerValue } from './source.js'
import type { PolicyInfo } from './types.js'

/**
 * The `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` headers from before the drafts.
 * Servers disagree on the reset: an epoch time in seconds (GitHub, express-rate-limit, Floodgate's
 * `legacy`), in ms, or delta seconds (@fastify/rate-limit). A value larger than a year of seconds is an
 * epoch time; anything smaller is a delta. `undefined` when none of the three is readable.
 *
 * @example parseLegacy(new Headers({ 'x-ratelimit-reset': '1719642600' }), Date.now())?.resetMs
 */
export function parseLegacy(headers: HeaderSource, now: number): PolicyInfo | undefined {
  const limit = toCount(parseDecimal(headerValue(headers, 'x-ratelimit-limit')))
  const remaining = toCount(parseDecimal(headerValue(headers, 'x-ratelimit-remaining')))
  const reset = parseDecimal(headerValue(headers, 'x-ratelimit-reset'))
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined
  return {
    mode: 'legacy',
    name: undefined,
    limit,
    remaining,
    resetMs: reset === undefined ? undefined : resetMs(reset, now),
    windowMs: undefined,
  }
}
