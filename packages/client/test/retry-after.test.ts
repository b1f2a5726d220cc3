import { describe, expect, it } from 'vitest'
import { parseHttpDate, parseRetryAfter } from '../src/headers/index.js'

const NOW = Date.UTC(2026, 9, 21, 7, 27, 30)

describe('Retry-After', () => {
  it('delta-seconds', () => {
    expect(parseRetryAfter('120', NOW)).toBe(120_000)
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0)
    expect(parseRetryAfter('1.5', NOW)).toBe(1_500)
  })

  it('an HTTP-date, in all three forms RFC 9110 asks a recipient to accept', () => {
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:28:00 GMT', NOW)).toBe(30_000)
    expect(parseRetryAfter('Wednesday, 21-Oct-26 07:28:00 GMT', NOW)).toBe(30_000)
    expect(parseRetryAfter('Wed Oct 21 07:28:00 2026', NOW)).toBe(30_000)
    expect(parseRetryAfter('Wed Oct  1 07:28:00 2026', NOW)).toBe(0)
  })

  it('a date in the past is 0', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(0)
  })

  it('a date years ahead, or a huge delta, is capped at a year', () => {
    const year = 365 * 24 * 3600 * 1000
    expect(parseRetryAfter('Fri, 01 Jan 2100 00:00:00 GMT', NOW)).toBe(year)
    expect(parseRetryAfter('99999999999', NOW)).toBe(year)
  })

  it('negative, non-numeric, garbled or local-time dates are absent, never NaN', () => {
    for (const value of [
      '-30',
      'soon',
      '',
      'NaN',
      '1e3',
      'Wed, 21 Oct 2026 07:28:00 PST',
      'Wed, 31 Feb 2026 07:28:00 GMT',
      '2026-10-21T07:28:00Z',
    ]) {
      expect(parseRetryAfter(value, NOW), value).toBeUndefined()
    }
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined()
  })

  it('the field sent twice (joined as "30, 30"): the first value', () => {
    expect(parseRetryAfter('30, 60', NOW)).toBe(30_000)
  })
})

describe('HTTP-date', () => {
  it('two-digit years more than 50 years ahead are in the past century', () => {
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(Date.UTC(1994, 10, 6, 8, 49, 37))
    expect(parseHttpDate('Monday, 06-Nov-34 08:49:37 GMT', NOW)).toBe(Date.UTC(2034, 10, 6, 8, 49, 37))
  })

  it('fields out of range are not a date', () => {
    expect(parseHttpDate('Wed, 21 Oct 2026 24:00:00 GMT', NOW)).toBeUndefined()
    expect(parseHttpDate('Wed, 21 Foo 2026 07:28:00 GMT', NOW)).toBeUndefined()
  })
})
