import * as z from 'zod'
import type { Algorithm } from '../types.js'
import { type CalendarPeriod, DAY_MS, PERIOD_CODES, periodOf } from './calendar.js'
import { decide, NEVER } from './decide.js'
import { algorithmId } from './id.js'
import { parseOptions, positiveInt } from './options.js'

/** Options of {@link calendarQuota}. */
export interface CalendarQuotaOptions {
  /**
   * How many requests (or units of cost) a key may make per period.
   * @example 10_000
   */
  limit: number
  /**
   * The calendar period: `'day'` (00:00 to 00:00), `'week'` (ISO: Monday 00:00 to Monday 00:00) or
   * `'month'` (the 1st 00:00 to the next 1st).
   * @example 'month'
   */
  period: CalendarPeriod
  /**
   * The offset from UTC the periods are aligned to, `'+HH:MM'` or `'-HH:MM'` (a fixed offset: no daylight
   * saving). `'+09:00'` resets a daily quota at midnight in Tokyo.
   * @default '+00:00'
   * @example '-05:00'
   */
  utcOffset?: string
}

const OFFSET_EXPECTED = "an offset from UTC like '+00:00', '+09:00' or '-05:30' (at most 14 hours)"
const OFFSET = /^([+-])(\d{2}):(\d{2})$/

const offsetMs = (text: string): number | undefined => {
  const match = OFFSET.exec(text)
  if (!match) return undefined
  const minutes = Number(match[2]) * 60 + Number(match[3])
  if (Number(match[3]) > 59 || minutes > 14 * 60) return undefined
  return (match[1] === '-' ? -minutes : minutes) * 60_000
}

const schema = z.strictObject({
  limit: positiveInt(),
  period: z.enum(['day', 'week', 'month'], { error: "'day', 'week' or 'month'" }),
  utcOffset: z
    .string({ error: OFFSET_EXPECTED })
    .refine((s) => offsetMs(s) !== undefined, { error: OFFSET_EXPECTED })
    .default('+00:00'),
})

/** A period's nominal length for headers (`w`): a day, a week, and 30 days for a month. */
const NOMINAL_MS: Readonly<Record<CalendarPeriod, number>> = {
  day: DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
}

/**
 * A calendar quota: a hard limit per day, ISO week or month, aligned in UTC (or at a fixed offset), as API
 * gateways' usage plans have it ("10,000 a day"). One counter per period: it refills whole when the next
 * period begins, and a refused request waits until then.
 *
 * State: `[periodStart, count]`.
 *
 * @example calendarQuota({ limit: 10_000, period: 'day' })
 */
export function calendarQuota(options: CalendarQuotaOptions): Algorithm {
  const parsed = parseOptions(schema, options, 'calendarQuota')
  const { limit } = parsed
  const period = PERIOD_CODES[parsed.period]
  const offset = offsetMs(parsed.utcOffset)!

  const evaluate = (s: Float64Array, at: number, now: number, cost: number, commit: boolean) => {
    const [start, end] = periodOf(now, period, offset)
    const count = s[at] === start ? s[at + 1]! : 0
    const untilNext = end - now
    if (count + cost <= limit) {
      if (commit) {
        s[at] = start
        s[at + 1] = count + cost
      }
      const used = commit ? count + cost : count
      return decide(true, limit, Math.floor(limit - used), used > 0 ? untilNext : 0, 0, 0)
    }
    const retryAfterMs = cost > limit ? NEVER : untilNext
    // Never below 0: a count merged from other processes (a SyncedStore) can pass the limit.
    return decide(
      false,
      limit,
      Math.max(0, Math.floor(limit - count)),
      count > 0 ? untilNext : 0,
      retryAfterMs,
      0,
    )
  }

  return {
    kind: 'calendar-quota',
    limit,
    windowMs: NOMINAL_MS[parsed.period],
    stateSize: 2,
    params: { limit, period, offsetMs: offset },
    // The state holds no limit: two quotas of one period share a key's count (a plan upgrade keeps it).
    id: algorithmId('calendar-quota', { period, offsetMs: offset }),
    consume: (s, at, now, cost) => evaluate(s, at, now, cost, true),
    peek: (s, at, now, cost) => evaluate(s, at, now, cost, false),
    refund(s, at, now, cost) {
      if (s[at] === periodOf(now, period, offset)[0]) s[at + 1] = Math.max(0, s[at + 1]! - cost)
    },
    charge(s, at, now, cost) {
      // The current period only: its count may go above the limit until the period ends.
      const start = periodOf(now, period, offset)[0]
      s[at + 1] = (s[at] === start ? s[at + 1]! : 0) + cost
      s[at] = start
    },
    expiresAt: (s, at) => (s[at + 1]! > 0 ? periodOf(s[at]!, period, offset)[1] : 0),
  }
}
