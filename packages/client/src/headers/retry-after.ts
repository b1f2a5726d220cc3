import { argument, headerText, time } from '../schema.js'
import { parseHttpDate } from './http-date.js'
import { clampMs, deltaMs, parseDecimal } from './numbers.js'

/**
 * `Retry-After` in ms from `now` (`Date.now()` when not given): delta-seconds (`120`) or an HTTP-date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`). A date in the past is 0; anything longer than a year is a year; a negative,
 * non-numeric or garbled value is `undefined` (as if absent), and so is `null` (what `Headers.get` answers
 * for a missing header). Never NaN. A `value` that is not a string, or a `now` that is not a time, throws a
 * `ClientConfigError` naming it.
 *
 * @example parseRetryAfter('30', Date.now()) // 30000
 */
export function parseRetryAfter(given: string | null | undefined, at?: number): number | undefined {
  const value = argument('parseRetryAfter.value', given, headerText)
  const now = argument('parseRetryAfter.now', at, time)
  if (value === undefined) return undefined
  const seconds = parseDecimal(value)
  if (seconds !== undefined) return deltaMs(seconds)
  const date = parseHttpDate(value, now)
  if (date !== undefined) return clampMs(date - now)
  // The field sent twice (`30, 30`, joined by the integration): the first value.
  const first = value.split(',')[0]
  return first !== value ? parseRetryAfter(first, now) : undefined
}
