import { parseDecimal, resetMs, toCount } from './numbers.js'
import { quotaPolicyWindowMs } from './quota-policy.js'
import { type HeaderSource, headerValue } from './source.js'
import type { PolicyInfo } from './types.js'

/**
 * draft-ietf-httpapi-ratelimit-headers-06: `RateLimit-Limit: 100`, `RateLimit-Remaining: 42`,
 * `RateLimit-Reset: 30` (delta seconds) and `RateLimit-Policy: 100;w=60`. The older drafts' quota policies
 * inside `RateLimit-Limit` (`100, 100;w=60`) read as their first number. `undefined` when none of the three
 * fields is readable.
 *
 * @example parseDraft6(response.headers, Date.now())?.remaining
 */
export function parseDraft6(headers: HeaderSource, now: number): PolicyInfo | undefined {
  const limit = toCount(parseDecimal(headerValue(headers, 'ratelimit-limit')?.split(/[,;]/)[0]))
  const remaining = toCount(parseDecimal(headerValue(headers, 'ratelimit-remaining')))
  const reset = parseDecimal(headerValue(headers, 'ratelimit-reset'))
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined
  return {
    mode: 'draft-6',
    name: undefined,
    limit,
    remaining,
    resetMs: reset === undefined ? undefined : resetMs(reset, now),
    windowMs: quotaPolicyWindowMs(headerValue(headers, 'ratelimit-policy'), limit),
  }
}
