// Errors that teach: an unknown option says what it probably meant (another library's name with the Floodgate
// equivalent, or the nearest known name), an unknown option is reported before a missing one, and a window
// given as a bare number under one second warns once that numbers are milliseconds.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  createLimiter,
  fixedWindow,
  gcra,
  leakyBucket,
  RateLimitConfigError,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '../src/index.js'
import { createRateLimitHandler, forgetRaisedWarnings } from '../src/internal.js'
import { nearestOption, unknownOptionHint } from '../src/unknown-option.js'

const configError = (create: () => unknown): RateLimitConfigError => {
  try {
    create()
  } catch (error) {
    expect(error).toBeInstanceOf(RateLimitConfigError)
    return error as RateLimitConfigError
  }
  throw new Error('expected a RateLimitConfigError')
}
const rateLimit = (options: Record<string, unknown>) =>
  configError(() => createRateLimitHandler(options as never))

describe('an unknown option names what was probably meant', () => {
  it("rateLimit({ windowMs: 60000, max: 5 }) says windowMs is express-rate-limit's and what it is here", () => {
    const error = rateLimit({ windowMs: 60000, max: 5 })
    expect(error.code).toBe('ERR_FLOODGATE_UNKNOWN_OPTION')
    expect(error.option).toBe('rateLimit.windowMs')
    expect(error.message).toBe(
      "Expected `rateLimit.windowMs` to be a known option, got 60000 (number). `windowMs` is express-rate-limit's; here it is `window: '1m'` or a number of ms.",
    )
  })

  it.each([
    ['max', 5, "`max` is express-rate-limit's and @fastify/rate-limit's; here it is `limit`."],
    ['timeWindow', '1 minute', "`timeWindow` is @fastify/rate-limit's; here it is `window: '1m'`"],
    [
      'keyGenerator',
      () => 'k',
      "`keyGenerator` is express-rate-limit's and @fastify/rate-limit's; here it is `key:",
    ],
    ['standardHeaders', true, "`standardHeaders` is express-rate-limit's; here it is `headers: 'draft-6'`"],
    ['legacyHeaders', true, "`legacyHeaders` is express-rate-limit's; here it is `headers: 'legacy'`"],
    ['points', 10, "`points` is rate-limiter-flexible's; here it is `limit`."],
    [
      'duration',
      60,
      "`duration` is rate-limiter-flexible's (in seconds) and koa-ratelimit's; here it is `window:",
    ],
    [
      'blockDuration',
      60,
      "`blockDuration` is rate-limiter-flexible's and @nestjs/throttler's; here it is a second",
    ],
    ['ttl', 60000, "`ttl` is @nestjs/throttler's; here it is `window: '1m'`"],
    ['keyPrefix', 'rl', "`keyPrefix` is rate-limiter-flexible's; here it is `prefix`"],
    ['whitelist', ['127.0.0.1'], "`whitelist` is koa-ratelimit's; here it is `allowList:"],
    [
      'errorResponseBuilder',
      () => ({}),
      "`errorResponseBuilder` is @fastify/rate-limit's; here it is `handler:",
    ],
    ['onExceeded', () => {}, "`onExceeded` is @fastify/rate-limit's; here it is `onLimited:"],
    ['skipOnError', true, "`skipOnError` is @fastify/rate-limit's; here it is `failMode: 'open'`"],
    ['passOnStoreError', true, "`passOnStoreError` is express-rate-limit's; here it is `failMode: 'open'`"],
    ['errorMessage', 'slow down', "`errorMessage` is koa-ratelimit's; here it is `message`."],
  ])("rateLimit's %s", (name, value, hint) => {
    const error = rateLimit({ [name]: value })
    expect(error.option).toBe(`rateLimit.${name}`)
    expect(error.message).toContain(hint)
    expect(error.message).not.toContain('one of the known options')
  })

  it('a misspelt option names the nearest known one, ignoring case', () => {
    expect(rateLimit({ allowlist: ['127.0.0.1'] }).message).toMatch(/Did you mean `allowList`\?$/)
    expect(rateLimit({ skipFailedRequest: true }).message).toMatch(/Did you mean `skipFailedRequests`\?$/)
    expect(rateLimit({ statuscode: 503 }).message).toMatch(/Did you mean `statusCode`\?$/)
    expect(rateLimit({ limt: 5 }).message).toMatch(/Did you mean `limit`\?$/)
  })

  it('with no good guess, the known options are listed', () => {
    const error = rateLimit({ frobnicate: true })
    expect(error.message).toMatch(
      /to be one of the known options \(limit, window, .*\), got true \(boolean\)$/,
    )
  })

  it("a peer's name is mapped to what that options object knows: `max` is `capacity` in a bucket", () => {
    const bucket = configError(() => tokenBucket({ max: 10, refillRate: 1 } as never))
    expect(bucket.option).toBe('tokenBucket.max')
    expect(bucket.message).toContain('here it is `capacity` (the burst a bucket holds)')
    const counter = configError(() => slidingWindowCounter({ limit: 5, max: 5 } as never))
    expect(counter.message).toContain('here it is `limit`')
  })

  it('a name that is no peer option there and near nothing known gets no hint', () => {
    expect(unknownOptionHint('keyGenerator', ['limit', 'window'])).toBeUndefined()
    expect(nearestOption('zzzzzz', ['limit', 'window'])).toBeUndefined()
    expect(nearestOption('widnow', ['limit', 'window'])).toBe('window')
  })
})

describe('a factory reports an unknown option before a missing one', () => {
  it.each([
    ['slidingWindowCounter', () => slidingWindowCounter({ max: 5 } as never), 'slidingWindowCounter.max'],
    ['fixedWindow', () => fixedWindow({ max: 5, windowMs: 1000 } as never), 'fixedWindow.max'],
    [
      'slidingWindowLog',
      () => slidingWindowLog({ window: '1m', points: 5 } as never),
      'slidingWindowLog.points',
    ],
    ['tokenBucket', () => tokenBucket({ max: 5 } as never), 'tokenBucket.max'],
    [
      'createLimiter',
      () => createLimiter({ limiter: fixedWindow({ limit: 1, window: '1s' }) } as never),
      'createLimiter.limiter',
    ],
  ])('%s', (_name, create, option) => {
    const error = configError(create)
    expect(error.code).toBe('ERR_FLOODGATE_UNKNOWN_OPTION')
    expect(error.option).toBe(option)
  })

  it('slidingWindowCounter({ max: 5 }) says max is `limit` here, rather than that limit is missing', () => {
    expect(configError(() => slidingWindowCounter({ max: 5 } as never)).message).toBe(
      "Expected `slidingWindowCounter.max` to be a known option, got 5 (number). `max` is express-rate-limit's and @fastify/rate-limit's; here it is `limit`.",
    )
  })
})

describe('a window given as a bare number under one second warns once that numbers are milliseconds', () => {
  let warnings: { message: string; code: string }[] = []
  beforeEach(() => {
    warnings = []
    forgetRaisedWarnings()
    vi.spyOn(process, 'emitWarning').mockImplementation(((message: string, options: { code: string }) => {
      warnings.push({ message, code: options.code })
    }) as never)
  })
  afterEach(() => vi.restoreAllMocks())

  it('window: 60 warns once, with a code, what it is and how to write seconds', () => {
    slidingWindowCounter({ limit: 5, window: 60 })
    fixedWindow({ limit: 5, window: 30 })
    expect(warnings).toEqual([
      {
        code: 'ERR_FLOODGATE_WINDOW_IN_MS',
        message:
          "@floodgate: A window or interval of 60 (a number) is 60 ms: numbers are milliseconds. For 60 seconds write '60s' (or 60000); for 60 ms write '60ms'. See docs/errors.md#err_floodgate_window_in_ms.",
      },
    ])
  })

  it.each([
    ['the short form', () => createRateLimitHandler({ limit: 5, window: 60 })],
    ['slidingWindowLog', () => slidingWindowLog({ limit: 5, window: 10 })],
    ['tokenBucket interval', () => tokenBucket({ capacity: 5, refillRate: 1, interval: 1 })],
    ['leakyBucket interval', () => leakyBucket({ capacity: 5, leakRate: 1, interval: 5 })],
    ['gcra period', () => gcra({ rate: 5, period: 1 })],
  ])('%s warns', (_name, create) => {
    create()
    expect(warnings.map((w) => w.code)).toEqual(['ERR_FLOODGATE_WINDOW_IN_MS'])
  })

  it("a string ('500ms'), a second or more, or the defaults are quiet", () => {
    slidingWindowCounter({ limit: 5, window: '500ms' })
    createRateLimitHandler({ limit: 5, window: '250ms' })
    slidingWindowCounter({ limit: 5, window: 1000 })
    fixedWindow({ limit: 5, window: 60_000 })
    tokenBucket({ capacity: 5, refillRate: 1 })
    gcra({ rate: 5 })
    createRateLimitHandler({})
    expect(warnings).toEqual([])
  })
})
