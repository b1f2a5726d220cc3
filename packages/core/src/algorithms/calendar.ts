/**
 * Calendar periods in UTC (or at a fixed offset from it), by integer arithmetic on days since 1970-01-01:
 * the proleptic Gregorian calendar, exact for every date a clock in ms can hold. The Redis script does the
 * same arithmetic (math.floor and floored modulo), so both agree to the millisecond on where a day, an ISO
 * week (from Monday) or a month begins.
 */

export const DAY_MS = 86_400_000

/** The periods a calendar quota counts in. */
export type CalendarPeriod = 'day' | 'week' | 'month'

/** Each period as a number, as the stores take it. */
export const PERIOD_CODES: Readonly<Record<CalendarPeriod, number>> = { day: 0, week: 1, month: 2 }

/** Days since 1970-01-01 of a civil date (month 1-12). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const mp = month > 2 ? month - 3 : month + 9
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

/** The civil date `[year, month (1-12), day]` of a number of days since 1970-01-01. */
export function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  )
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day]
}

/**
 * The period holding `now`, as `[start, end)` in ms: a day, an ISO week (Monday 00:00 to Monday 00:00), or
 * a calendar month, in local time at `offsetMs` from UTC (`+09:00` is 32,400,000).
 *
 * @example periodOf(Date.UTC(2026, 1, 10, 15), 2, 0) // [Date.UTC(2026, 1, 1), Date.UTC(2026, 2, 1)]
 */
export function periodOf(now: number, period: number, offsetMs: number): [number, number] {
  const days = Math.floor((now + offsetMs) / DAY_MS)
  let first: number
  let next: number
  if (period === 0) {
    first = days
    next = days + 1
  } else if (period === 1) {
    first = days - ((((days + 3) % 7) + 7) % 7) // 1970-01-01 was a Thursday, 3 days after a Monday
    next = first + 7
  } else {
    const [year, month] = civilFromDays(days)
    first = daysFromCivil(year, month, 1)
    next = month === 12 ? daysFromCivil(year + 1, 1, 1) : daysFromCivil(year, month + 1, 1)
  }
  return [first * DAY_MS - offsetMs, next * DAY_MS - offsetMs]
}
