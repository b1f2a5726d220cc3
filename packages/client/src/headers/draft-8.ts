import { argument, headerSource, time } from '../schema.js'
import { isDraft7 } from './draft-7.js'
import { deltaMs, toCount } from './numbers.js'
import { type HeaderSource, headerValue } from './source.js'
import { type Member, nonNegative, parseMembers } from './structured-fields.js'
import type { PolicyInfo } from './types.js'

const named = (members: readonly Member[]) =>
  members.filter((m): m is Member & { value: string } => m.key === undefined && typeof m.value === 'string')

const text = (item: unknown): string | undefined => (typeof item === 'string' ? item : undefined)

/**
 * draft-ietf-httpapi-ratelimit-headers-08 and later (up to draft-12): Structured Fields lists, one item
 * per policy, `RateLimit-Policy: "ip";q=100;w=60, "user";q=1000;w=3600` and
 * `RateLimit: "ip";r=42;t=30, "user";r=998;t=1830`, with the optional `qu` (quota unit) and `pk`
 * (partition key). Items are matched by name; a policy in only one of the two fields is still reported.
 *
 * @example parseDraft8(response.headers, Date.now()).find((p) => p.name === 'user')?.remaining
 */
export function parseDraft8(given: HeaderSource, at?: number): PolicyInfo[] {
  const headers = argument('parseDraft8.headers', given, headerSource)
  // Its resets are delta seconds, read with no clock; `now` is checked all the same, as everywhere.
  argument('parseDraft8.now', at, time)
  const limitField = headerValue(headers, 'ratelimit')
  const limitMembers = limitField === undefined ? [] : parseMembers(limitField)
  const current = isDraft7(limitMembers) ? [] : named(limitMembers)
  const policyField = headerValue(headers, 'ratelimit-policy')
  const policies = policyField === undefined ? [] : named(parseMembers(policyField))

  const names = [...new Set([...current, ...policies].map((m) => m.value))]
  return names.map((name): PolicyInfo => {
    const state = current.find((m) => m.value === name)?.params
    const policy = policies.find((m) => m.value === name)?.params
    const t = nonNegative(state?.get('t'))
    const w = nonNegative(policy?.get('w'))
    const quotaUnit = text(policy?.get('qu'))
    const partitionKey = text(state?.get('pk') ?? policy?.get('pk'))
    return {
      mode: 'draft-8',
      name,
      limit: toCount(nonNegative(policy?.get('q'))),
      remaining: toCount(nonNegative(state?.get('r'))),
      resetMs: t === undefined ? undefined : deltaMs(t),
      windowMs: w === undefined ? undefined : deltaMs(w),
      ...(quotaUnit === undefined ? {} : { quotaUnit }),
      ...(partitionKey === undefined ? {} : { partitionKey }),
    }
  })
}
