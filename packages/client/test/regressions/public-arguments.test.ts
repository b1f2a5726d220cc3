// Regression: public functions took wrong arguments silently. `parseRetryAfter(value)` without its `now`
// answered 0 in plain JavaScript (NaN arithmetic clamped), and `parseRetryAfter(headers.get('retry-after'))`
// threw a TypeError on a missing header (`null`). `now` is `Date.now()` when not given now, as in
// `readRateLimit`, and every public function checks its arguments as options are checked: a
// `ClientConfigError` at the call, naming the argument, the value and what is allowed.
import { describe, expect, it } from 'vitest'
import {
  backoffCeiling,
  backoffDelay,
  ClientConfigError,
  parseDraft6,
  parseDraft7,
  parseDraft8,
  parseHttpDate,
  parseLegacy,
  parseRetryAfter,
  readRateLimit,
  restAfter,
  retryDelay,
} from '../../src/index.js'

const invalid = (option: string) =>
  expect.objectContaining({ name: 'ClientConfigError', code: 'ERR_FLOODGATE_INVALID_OPTION', option })

describe('parseRetryAfter', () => {
  it('without now: delta seconds, and a date long past is 0 (not NaN clamped into anything)', () => {
    expect(parseRetryAfter('30')).toBe(30_000)
    expect(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT')).toBe(0)
    expect(parseRetryAfter('Fri, 21 Oct 2095 07:28:00 GMT')).toBe(365 * 24 * 3600 * 1000) // a year at most
  })

  it('a missing header (null, as Headers.get answers) is undefined', () => {
    expect(parseRetryAfter(null)).toBeUndefined()
    expect(parseRetryAfter(new Headers().get('retry-after'))).toBeUndefined()
  })

  it('a value that is not a string, or a now that is not a time, throws at the call', () => {
    expect(() => parseRetryAfter(30 as never)).toThrow(invalid('parseRetryAfter.value'))
    expect(() => parseRetryAfter('30', '2026-01-01' as never)).toThrow(invalid('parseRetryAfter.now'))
    expect(() => parseRetryAfter('30', Number.NaN)).toThrow(ClientConfigError)
    expect(() => parseRetryAfter('30', Number.NaN)).toThrow(
      /Expected `parseRetryAfter.now` to be a time in ms/,
    )
  })
})

describe('the header readers', () => {
  const headers = { 'ratelimit-limit': '10', 'ratelimit-remaining': '3', 'ratelimit-reset': '20' }

  it('take now as Date.now() when not given', () => {
    expect(parseDraft6(headers)).toMatchObject({ limit: 10, remaining: 3, resetMs: 20_000 })
    expect(readRateLimit(headers).policies).toHaveLength(1)
    expect(parseHttpDate('Wed, 21 Oct 2026 07:28:00 GMT')).toBe(Date.UTC(2026, 9, 21, 7, 28))
  })

  it.each([
    ['readRateLimit', readRateLimit],
    ['parseDraft6', parseDraft6],
    ['parseDraft7', parseDraft7],
    ['parseDraft8', parseDraft8],
    ['parseLegacy', parseLegacy],
  ] as const)('%s refuses headers that are not headers, and a now that is not a time', (name, read) => {
    expect(() => read('ratelimit: 10' as never)).toThrow(invalid(`${name}.headers`))
    expect(() => read(undefined as never)).toThrow(invalid(`${name}.headers`))
    expect(() => read(headers, 'now' as never)).toThrow(invalid(`${name}.now`))
  })

  it('parseHttpDate refuses a text that is not a string', () => {
    expect(() => parseHttpDate(Date.now() as never)).toThrow(invalid('parseHttpDate.text'))
  })
})

describe('the backoff and pacing functions', () => {
  it('check their arguments', () => {
    expect(backoffCeiling(3, 2_000, 30_000)).toBe(16_000)
    expect(() => backoffCeiling('3' as never, 2_000, 30_000)).toThrow(invalid('backoffCeiling.attempt'))
    expect(() => backoffCeiling(3, -1, 30_000)).toThrow(invalid('backoffCeiling.baseMs'))
    expect(() => backoffDelay({ attempt: 1, baseMs: 2_000, maxMs: 30_000, jitter: 'full' } as never)).toThrow(
      invalid('backoffDelay.random'),
    )
    expect(() =>
      backoffDelay({
        attempt: 1,
        baseMs: 2_000,
        maxMs: 30_000,
        jitter: 'half' as never,
        random: Math.random,
      }),
    ).toThrow(invalid('backoffDelay.jitter'))
    expect(() => backoffDelay(undefined as never)).toThrow(invalid('backoffDelay.attempt'))
    expect(retryDelay(5_000, 1_000, 'none')).toBe(5_000)
    expect(() => retryDelay(5_000, Number.NaN, 'full')).toThrow(invalid('retryDelay.backoffMs'))
    expect(() => retryDelay('5s' as never, 1_000, 'full')).toThrow(invalid('retryDelay.serverWaitMs'))
    expect(() => retryDelay(5_000, 1_000, undefined as never)).toThrow(invalid('retryDelay.jitter'))
    expect(() => restAfter(readRateLimit({}).policies as never, 0)).toThrow(invalid('restAfter.info'))
    expect(() => restAfter(readRateLimit({}), -1)).toThrow(invalid('restAfter.paceRemaining'))
  })
})
