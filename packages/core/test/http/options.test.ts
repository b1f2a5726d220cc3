import { describe, expect, it } from 'vitest'
import { fixedWindow, RateLimitConfigError } from '../../src/index.js'
import { createRateLimitHandler, mergeRateLimitOptions } from '../../src/internal.js'

const fails = (options: unknown) => {
  try {
    createRateLimitHandler(options as never)
  } catch (error) {
    expect(error).toBeInstanceOf(RateLimitConfigError)
    return error as RateLimitConfigError
  }
  throw new Error('expected a RateLimitConfigError')
}

describe('options are validated when the middleware is created', () => {
  it('names the option, the value and what is allowed', () => {
    const error = fails({ window: -5 })
    expect(error.code).toBe('ERR_FLOODGATE_INVALID_DURATION')
    expect(error.option).toBe('rateLimit.window')
    expect(error.message).toBe(
      "Expected `rateLimit.window` to be a duration like '250ms', '10s', '1m', '1h', '1d' or a number of ms > 0, got -5 (number)",
    )
  })

  it('rejects unknown option names', () => {
    const error = fails({ frobnicate: 5 })
    expect(error.code).toBe('ERR_FLOODGATE_UNKNOWN_OPTION')
    expect(error.option).toBe('rateLimit.frobnicate')
    expect(error.message).toMatch(/one of the known options \(limit, window, /)
    expect(fails({ limits: [{ algorithm: fixedWindow({ limit: 1, window: 1000 }), max: 1 }] }).option).toBe(
      'rateLimit.limits.0.max',
    )
  })

  it.each([
    [{ limit: 0 }, 'rateLimit.limit', 'a whole number >= 1'],
    [{ limit: 1.5 }, 'rateLimit.limit', 'a whole number >= 1'],
    [{ key: 'ip-address' }, 'rateLimit.key', "'ip', 'user', 'endpoint', 'global'"],
    [{ key: [] }, 'rateLimit.key', "'ip', 'user'"],
    [{ headers: 'draft-9' }, 'rateLimit.headers', "one of 'draft-6'"],
    [{ headers: ['draft-7', 'draft-8'] }, 'rateLimit.headers', 'an array of one draft'],
    [{ allowList: ['10.0.0.0/33'] }, 'rateLimit.allowList.0', 'CIDR range'],
    [{ ipv6Subnet: 0 }, 'rateLimit.ipv6Subnet', 'from 1 to 128'],
    [{ statusCode: 200 }, 'rateLimit.statusCode', 'from 400 to 599'],
    [{ cost: -1 }, 'rateLimit.cost', 'a finite number >= 0'],
    [{ cost: Number.NaN }, 'rateLimit.cost', 'a finite number >= 0'],
    [{ failMode: 'sometimes' }, 'rateLimit.failMode', "'open', 'closed' or { fallback: store }"],
    [{ failMode: { fallback: 'memory' } }, 'rateLimit.failMode', "'open', 'closed' or { fallback: store }"],
    [{ failMode: 'fallback' }, 'rateLimit.failMode', "'open', 'closed' or { fallback: store }"],
    [{ storeTimeout: false }, 'rateLimit.storeTimeout', "a duration like '250ms'"],
    [{ format: 'xml' }, 'rateLimit.format', "'json' or 'problem+json'"],
    [{ store: {} }, 'rateLimit.store', 'a store'],
    [{ name: 'has space' }, 'rateLimit.name', 'letters, digits'],
    [{ prefix: 'a|b' }, 'rateLimit.prefix', 'without |, { or }'],
    [{ prefix: 'a{b' }, 'rateLimit.prefix', 'without |, { or }'],
    [{ skip: true }, 'rateLimit.skip', 'a function'],
    [{ limits: [] }, 'rateLimit.limits', 'non-empty array'],
  ])('%j -> %s', (options, option, expected) => {
    const error = fails(options)
    expect(error.option).toBe(option)
    expect(error.message).toContain(expected)
  })

  it('the short form and limits do not mix; algorithm carries its own quota', () => {
    const algorithm = fixedWindow({ limit: 1, window: 1000 })
    expect(fails({ limit: 5, limits: [{ algorithm }] }).option).toBe('rateLimit.limit')
    expect(fails({ algorithm, window: '1m' }).option).toBe('rateLimit.window')
  })

  it('policy names must be unique, and a user key needs the user option', () => {
    const algorithm = fixedWindow({ limit: 1, window: 1000 })
    expect(fails({ limits: [{ algorithm }, { algorithm }] }).option).toBe('rateLimit.limits.1.name')
    const error = fails({ key: 'user' })
    expect(error.option).toBe('rateLimit.user')
    expect(fails({ limits: [{ key: ['user', 'endpoint'], algorithm }] }).option).toBe('rateLimit.user')
  })

  it('accepts no options at all and the full form', () => {
    expect(() => createRateLimitHandler()).not.toThrow()
    expect(() =>
      createRateLimitHandler({
        user: () => 'u',
        headers: ['draft-8', 'legacy'],
        limits: [
          { name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 5, window: '1s' }) },
          { name: 'user', key: 'user', algorithm: fixedWindow({ limit: 5, window: '1s' }), cost: () => 2 },
        ],
      }),
    ).not.toThrow()
  })

  it("never mutates the caller's options", () => {
    const options = Object.freeze({ limit: 5, window: '1m' as const })
    expect(() => createRateLimitHandler(options)).not.toThrow()
  })
})

describe('mergeRateLimitOptions', () => {
  it("a route's policy replaces the app's whole; other options are inherited", () => {
    const onError = () => {}
    expect(mergeRateLimitOptions({ limit: 100, window: '1m', onError }, { limit: 5 })).toEqual({
      limit: 5,
      onError,
    })
    expect(mergeRateLimitOptions({ limit: 100, headers: 'draft-7' }, { dryRun: true })).toEqual({
      limit: 100,
      headers: 'draft-7',
      dryRun: true,
    })
  })
})
