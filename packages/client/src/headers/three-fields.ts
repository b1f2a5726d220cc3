import { parseDecimal, toCount } from './numbers.js'
import { type HeaderSource, headerValue } from './source.js'

/** What the one-policy modes send in three fields: `<prefix>-limit`, `-remaining`, `-reset`. */
export interface ThreeFields {
  readonly limit: number | undefined
  readonly remaining: number | undefined
  readonly resetMs: number | undefined
}

/**
 * Read `<prefix>-limit`, `<prefix>-remaining` and `<prefix>-reset` (the reset in ms from now by `resetOf`: delta
 * seconds for the drafts, `legacyResetMs` for `X-RateLimit-Reset`);
 * `undefined` when none of the three is readable. A limit followed by quota policies, as the drafts before
 * draft-6 sent it (`100, 100;w=60`), reads as its first number.
 */
export function readThreeFields(
  headers: HeaderSource,
  prefix: string,
  resetOf: (seconds: number, now: number) => number,
  now: number,
): ThreeFields | undefined {
  const limit = toCount(parseDecimal(headerValue(headers, `${prefix}-limit`)?.split(/[,;]/)[0]))
  const remaining = toCount(parseDecimal(headerValue(headers, `${prefix}-remaining`)))
  const reset = parseDecimal(headerValue(headers, `${prefix}-reset`))
  if (limit === undefined && remaining === undefined && reset === undefined) return undefined
  return { limit, remaining, resetMs: reset === undefined ? undefined : resetOf(reset, now) }
}
