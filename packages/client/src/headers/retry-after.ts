import { parseHttpDate } from './http-date.js'
import { clampMs, deltaMs, parseDecimal } from './numbers.js'

/**
 * `Retry-After` in ms from `now`: delta-seconds (`120`) or an HTTP-date (`Wed, 21 Oct 2026 07:28:00 GMT`).
 * A date in the past is 0; anything longer than a year is a year; a negative, non-numeric or garbled value
 * is `undefined` (as if absent). Never NaN.
 *
 * @example parseRetryAfter('30', Date.now()) // 30000
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined
  const seconds = parseDecimal(value)
  if (seconds !== undefined) return deltaMs(seconds)
  const date = parseHttpDate(value, now)
  if (date !== undefined) return clampMs(date - now)
  // The field sent twice (`30, 30`, joined by the integration): the first value.
  const first = value.split(',')[0]
  return first !== value ? parseRetryAfter(first, now) : undefined
}
