import { argument, headerSource, time } from '../schema.js'
import { deltaMs } from './numbers.js'
import { quotaPolicyWindowMs } from './quota-policy.js'
import { type HeaderSource, headerValue } from './source.js'
import { readThreeFields } from './three-fields.js'
import type { PolicyInfo } from './types.js'

/**
 * draft-ietf-httpapi-ratelimit-headers-06: `RateLimit-Limit: 100`, `RateLimit-Remaining: 42`,
 * `RateLimit-Reset: 30` (delta seconds) and `RateLimit-Policy: 100;w=60`. The older drafts' quota policies
 * inside `RateLimit-Limit` (`100, 100;w=60`) read as their first number. `undefined` when none of the three
 * fields is readable.
 *
 * @example parseDraft6(response.headers, Date.now())?.remaining
 */
export function parseDraft6(given: HeaderSource, at?: number): PolicyInfo | undefined {
  const headers = argument('parseDraft6.headers', given, headerSource)
  const now = argument('parseDraft6.now', at, time)
  const fields = readThreeFields(headers, 'ratelimit', deltaMs, now)
  if (fields === undefined) return undefined
  return {
    mode: 'draft-6',
    name: undefined,
    ...fields,
    windowMs: quotaPolicyWindowMs(headerValue(headers, 'ratelimit-policy'), fields.limit),
  }
}
