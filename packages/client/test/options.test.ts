import { describe, expect, it } from 'vitest'
import { ClientConfigError } from '../src/errors.js'
import { createFetch } from '../src/fetch.js'
import { parseClientOptions } from '../src/options.js'
import { createInterceptor } from '../src/undici.js'

describe('options', () => {
  it('the defaults', () => {
    const settings = parseClientOptions(undefined)
    expect(settings).toMatchObject({
      maxAttempts: 3,
      retryOn: [429, 503],
      retryMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE'],
      baseDelay: 2_000,
      maxDelay: 30_000,
      jitter: 'full',
      maxRetryAfter: 60_000,
      pace: false,
      paceRemaining: 0,
      maxPaceDelay: 60_000,
      onRetry: undefined,
      random: Math.random,
      now: Date.now,
    })
    expect(settings.budget === false ? 0 : settings.budget.tokens).toBe(500)
  })

  it('each client gets its own budget by default', () => {
    const a = parseClientOptions({}).budget
    const b = parseClientOptions({}).budget
    expect(a).not.toBe(b)
  })

  it('durations as strings or ms; methods upper-cased', () => {
    const settings = parseClientOptions({
      baseDelay: '250ms',
      maxDelay: '1.5m',
      maxRetryAfter: 0,
      retryMethods: ['get'],
    })
    expect([settings.baseDelay, settings.maxDelay, settings.maxRetryAfter]).toEqual([250, 90_000, 0])
    expect(settings.retryMethods).toEqual(['GET'])
  })

  it.each([
    [{ maxAttempts: -5 }, 'Expected `maxAttempts` to be a whole number >= 1, got -5 (number)'],
    [{ maxAttempts: 2.5 }, 'Expected `maxAttempts` to be a whole number >= 1, got 2.5 (number)'],
    [
      { retryOn: [429, 700] },
      'Expected `retryOn` to be an array of HTTP status codes (whole numbers from 100 to 599), got an array of 2',
    ],
    [
      { retryMethods: ['GET', 'NOT A METHOD'] },
      "Expected `retryMethods` to be an array of HTTP methods such as 'GET', got an array of 2",
    ],
    [
      { baseDelay: '1 parsec' },
      "Expected `baseDelay` to be a duration like '500ms', '2s', '1m' or a number of ms >= 0, got '1 parsec' (string)",
    ],
    [
      { maxDelay: Number.NaN },
      "Expected `maxDelay` to be a duration like '500ms', '2s', '1m' or a number of ms >= 0, got NaN (number)",
    ],
    [
      { jitter: 'random' },
      "Expected `jitter` to be one of 'full', 'equal', 'decorrelated', 'none', got 'random' (string)",
    ],
    [
      { budget: true },
      'Expected `budget` to be a retry budget (from retryBudget()) or false, got true (boolean)',
    ],
    [{ pace: 'yes' }, "Expected `pace` to be true or false, got 'yes' (string)"],
    [{ paceRemaining: -1 }, 'Expected `paceRemaining` to be a whole number >= 0, got -1 (number)'],
    [{ onRetry: 'log' }, "Expected `onRetry` to be a function, got 'log' (string)"],
    [{ random: 0.5 }, 'Expected `random` to be a function returning a number in [0, 1), got 0.5 (number)'],
  ])('%j fails at creation: %s', (options, message) => {
    for (const create of [createFetch, createInterceptor]) {
      let error: unknown
      try {
        create(options as never)
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(ClientConfigError)
      expect((error as ClientConfigError).message).toBe(message)
      expect((error as ClientConfigError).code).toBe('ERR_FLOODGATE_INVALID_OPTION')
      expect((error as ClientConfigError).option).toBe(Object.keys(options)[0])
    }
  })

  it('an unknown option names the known ones', () => {
    expect(() => createFetch({ maxAttemps: 3 } as never)).toThrow(
      /^Expected `maxAttemps` to be one of the known options \(maxAttempts, retryOn, .*, fetch\), got 3 \(number\)$/,
    )
    expect(() => createInterceptor({ fetch: globalThis.fetch } as never)).toThrow(
      /`fetch` to be one of the known options/,
    )
  })

  it('options that are not an object', () => {
    expect(() => createFetch(5 as never)).toThrow(
      'Expected `options` to be an object of options, got 5 (number)',
    )
  })

  it('the caller’s options are not changed', () => {
    const options = Object.freeze({ retryMethods: Object.freeze(['get']), baseDelay: '1s' as const })
    createFetch(options)
    expect(options.retryMethods).toEqual(['get'])
  })
})
