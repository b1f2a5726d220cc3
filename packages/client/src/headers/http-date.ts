import { argument, requiredText, time } from '../schema.js'

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']

// RFC 9110 §5.6.7: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept.
const IMF_FIXDATE = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/i
const RFC_850 = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/i
const ASCTIME = /^[a-z]{3} ([a-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/i

/**
 * An HTTP-date to epoch ms, or `undefined`. Strict: only the three forms of RFC 9110, in GMT, with every
 * field in range (`Date.parse` would take local times and anything else it can guess at). `now` (`Date.now()` when not
 * given) places an RFC 850 date's two-digit year. Arguments of the wrong type throw a `ClientConfigError`.
 */
export function parseHttpDate(text: string, at?: number): number | undefined {
  const value = argument('parseHttpDate.text', text, requiredText).trim()
  const now = argument('parseHttpDate.now', at, time)
  let m = IMF_FIXDATE.exec(value)
  if (m) return utc(Number(m[3]), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!)
  m = RFC_850.exec(value)
  if (m) return utc(fullYear(Number(m[3]), now), m[2]!, Number(m[1]), m[4]!, m[5]!, m[6]!)
  m = ASCTIME.exec(value)
  if (m) return utc(Number(m[6]), m[1]!, Number(m[2]!.trim()), m[3]!, m[4]!, m[5]!)
  return undefined
}

/** RFC 9110: a two-digit year more than 50 years in the future is in the past century. */
function fullYear(twoDigits: number, now: number): number {
  const thisYear = new Date(now).getUTCFullYear()
  let year = Math.floor(thisYear / 100) * 100 + twoDigits
  if (year > thisYear + 50) year -= 100
  return year
}

function utc(year: number, month: string, day: number, h: string, m: string, s: string): number | undefined {
  const monthIndex = MONTHS.indexOf(month.toLowerCase())
  const [hours, minutes, seconds] = [Number(h), Number(m), Number(s)]
  if (monthIndex < 0 || day < 1 || day > 31 || hours > 23 || minutes > 59 || seconds > 60) return undefined
  const ms = Date.UTC(year, monthIndex, day, hours, minutes, seconds)
  // Date.UTC rolls 31 Feb over to March: such a date is not one.
  return new Date(ms).getUTCDate() === day ? ms : undefined
}
