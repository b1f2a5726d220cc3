import { argument, headerSource, time } from '../schema.js'
import { deltaMs, toCount } from './numbers.js'
import { quotaPolicyWindowMs } from './quota-policy.js'
import { type HeaderSource, headerValue } from './source.js'
import { type Member, nonNegative, parseMembers } from './structured-fields.js'
import type { PolicyInfo } from './types.js'

const FIELDS = new Set(['limit', 'remaining', 'reset'])

/** Whether a `RateLimit` field is the draft-7 dictionary (`limit=, remaining=, reset=`), not a draft-8 list. */
export const isDraft7 = (members: readonly Member[]): boolean =>
  members.some((m) => m.key !== undefined && FIELDS.has(m.key))

/**
 * draft-ietf-httpapi-ratelimit-headers-07: `RateLimit: limit=100, remaining=42, reset=30` and
 * `RateLimit-Policy: 100;w=60`. `undefined` when the `RateLimit` field is absent or of another draft.
 *
 * @example parseDraft7(new Headers({ ratelimit: 'limit=100, remaining=0, reset=30' }), Date.now())
 */
export function parseDraft7(given: HeaderSource, at?: number): PolicyInfo | undefined {
  const headers = argument('parseDraft7.headers', given, headerSource)
  // Its resets are delta seconds, read with no clock; `now` is checked all the same, as everywhere.
  argument('parseDraft7.now', at, time)
  const field = headerValue(headers, 'ratelimit')
  if (field === undefined) return undefined
  const members = parseMembers(field)
  if (!isDraft7(members)) return undefined
  // Some servers separate the fields with `;` (`limit=100; remaining=42; reset=30`): they read as parameters.
  const get = (key: string) =>
    nonNegative(
      members.find((m) => m.key === key)?.value ?? members.find((m) => m.params.has(key))?.params.get(key),
    )
  const limit = toCount(get('limit'))
  const reset = get('reset')
  return {
    mode: 'draft-7',
    name: undefined,
    limit,
    remaining: toCount(get('remaining')),
    resetMs: reset === undefined ? undefined : deltaMs(reset),
    windowMs: quotaPolicyWindowMs(headerValue(headers, 'ratelimit-policy'), limit),
  }
}
