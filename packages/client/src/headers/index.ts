import { argument, headerSource, time } from '../schema.js'
import { parseDraft6 } from './draft-6.js'
import { parseDraft7 } from './draft-7.js'
import { parseDraft8 } from './draft-8.js'
import { parseLegacy } from './legacy.js'
import { parseRetryAfter } from './retry-after.js'
import { type HeaderSource, headerValue } from './source.js'
import type { PolicyInfo, RateLimitInfo } from './types.js'

export { parseDraft6 } from './draft-6.js'
export { parseDraft7 } from './draft-7.js'
export { parseDraft8 } from './draft-8.js'
export { parseHttpDate } from './http-date.js'
export { parseLegacy } from './legacy.js'
export { parseRetryAfter } from './retry-after.js'
export type { HeaderSource } from './source.js'
export type { HeaderMode, PolicyInfo, RateLimitInfo } from './types.js'

/**
 * Read every rate-limit header a response carries, in every mode (draft-6, draft-7, draft-8 and later,
 * legacy `X-RateLimit-*`), and `Retry-After`, against `now` (`Date.now()` when not given). Whatever the server sends, the answer is finite, never
 * negative and at most a year; a field that cannot be read is `undefined`.
 *
 * @example
 * const info = readRateLimit(response.headers)
 * if (info.policies.some((p) => p.remaining === 0)) console.log('at the wall')
 */
export function readRateLimit(given: HeaderSource, at?: number): RateLimitInfo {
  const headers = argument('readRateLimit.headers', given, headerSource)
  const now = argument('readRateLimit.now', at, time)
  const policies: PolicyInfo[] = []
  const add = (policy: PolicyInfo | undefined) => {
    if (policy !== undefined) policies.push(policy)
  }
  add(parseDraft6(headers, now))
  add(parseDraft7(headers, now))
  policies.push(...parseDraft8(headers, now))
  add(parseLegacy(headers, now))
  return { retryAfterMs: parseRetryAfter(headerValue(headers, 'retry-after'), now), policies }
}
