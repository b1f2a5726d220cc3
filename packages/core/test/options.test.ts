import { describe, expect, it } from 'vitest'
import {
  createLimiter,
  fixedWindow,
  gcra,
  leakyBucket,
  MemoryStore,
  RateLimitConfigError,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '../src/index.js'
import { parseDuration } from '../src/internal.js'

function configError(fn: () => unknown): RateLimitConfigError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(RateLimitConfigError)
    return error as RateLimitConfigError
  }
  throw new Error('expected a RateLimitConfigError, nothing was thrown')
}

describe('durations', () => {
  it.each([
    ['250ms', 250],
    ['10s', 10_000],
    ['1m', 60_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1.5m', 90_000],
    ['2 h', 7_200_000],
    [1500, 1500],
  ])('%s is %d ms', (input, ms) => {
    expect(parseDuration(input as never)).toBe(ms)
  })

  it.each(['1 parsec', '', '-5s', '10', 'ms', '1e3ms', 'Infinity', '0s'])('rejects %j', (input) => {
    const error = configError(() => parseDuration(input as never, 'window'))
    expect(error.code).toBe('ERR_FLOODGATE_INVALID_DURATION')
    expect(error.message).toContain('`window`')
  })
})

describe('invalid options fail at creation, naming the option, the value and what is allowed', () => {
  it('a window of 1 parsec', () => {
    const error = configError(() => fixedWindow({ limit: 10, window: '1 parsec' as never }))
    expect(error.code).toBe('ERR_FLOODGATE_INVALID_DURATION')
    expect(error.option).toBe('fixedWindow.window')
    expect(error.message).toBe(
      "Expected `fixedWindow.window` to be a duration like '250ms', '10s', '1m', '1h', '1d' or a number of ms > 0, got '1 parsec' (string)",
    )
  })

  it.each([
    [
      'zero limit',
      () => slidingWindowCounter({ limit: 0, window: '1m' }),
      'slidingWindowCounter.limit',
      '0 (number)',
    ],
    ['negative limit', () => fixedWindow({ limit: -5, window: '1m' }), 'fixedWindow.limit', '-5 (number)'],
    [
      'NaN limit',
      () => slidingWindowLog({ limit: Number.NaN, window: '1m' }),
      'slidingWindowLog.limit',
      'NaN (number)',
    ],
    [
      'fractional limit',
      () => fixedWindow({ limit: 2.5, window: '1m' }),
      'fixedWindow.limit',
      '2.5 (number)',
    ],
    [
      'string limit',
      () => fixedWindow({ limit: '10' as never, window: '1m' }),
      'fixedWindow.limit',
      "'10' (string)",
    ],
    ['negative window', () => fixedWindow({ limit: 1, window: -5 }), 'fixedWindow.window', '-5 (number)'],
    [
      'zero capacity',
      () => tokenBucket({ capacity: 0, refillRate: 1 }),
      'tokenBucket.capacity',
      '0 (number)',
    ],
    [
      'infinite rate',
      () => tokenBucket({ capacity: 1, refillRate: Number.POSITIVE_INFINITY }),
      'tokenBucket.refillRate',
      'Infinity (number)',
    ],
    [
      'bad mode',
      () => leakyBucket({ capacity: 1, leakRate: 1, mode: 'queue' as never }),
      'leakyBucket.mode',
      "'queue' (string)",
    ],
    ['zero rate', () => gcra({ rate: 0 }), 'gcra.rate', '0 (number)'],
    [
      'missing window',
      () => fixedWindow({ limit: 1 } as never),
      'fixedWindow.window',
      'undefined (undefined)',
    ],
    ['maxKeys 0', () => new MemoryStore({ maxKeys: 0 }), 'MemoryStore.maxKeys', '0 (number)'],
  ])('%s', (_name, create, option, shown) => {
    const error = configError(create)
    expect(error.option).toBe(option)
    expect(error.message).toContain(`\`${option}\``)
    expect(error.message).toContain(`got ${shown}`)
    expect(error.code).toMatch(/^ERR_FLOODGATE_/)
  })

  it('unknown option names, with the known ones listed', () => {
    const error = configError(() => fixedWindow({ limit: 1, window: '1s', frobnicate: 1000 } as never))
    expect(error.code).toBe('ERR_FLOODGATE_UNKNOWN_OPTION')
    expect(error.option).toBe('fixedWindow.frobnicate')
    expect(error.message).toContain('limit, window')
  })

  it('a limiter without an algorithm, or with a store that is not one', () => {
    expect(configError(() => createLimiter({} as never)).option).toBe('createLimiter.algorithm')
    const error = configError(() => createLimiter({ algorithm: gcra({ rate: 1 }), store: {} as never }))
    expect(error.option).toBe('createLimiter.store')
    expect(configError(() => createLimiter({ algorithm: gcra({ rate: 1 }), clock: 5 as never })).option).toBe(
      'createLimiter.clock',
    )
  })

  it('options that are not an object', () => {
    expect(configError(() => fixedWindow(null as never)).message).toContain('an object of options')
  })

  it('never mutates the caller’s options', () => {
    const options = Object.freeze({ capacity: 5, refillRate: 1 })
    expect(() => tokenBucket(options)).not.toThrow()
    expect(options).toEqual({ capacity: 5, refillRate: 1 })
  })
})

describe('invalid calls', () => {
  const limiter = createLimiter({ algorithm: fixedWindow({ limit: 5, window: '1s' }) })
  it.each([-1, -0.5, Number.NaN, Number.POSITIVE_INFINITY, '2', null])(
    'a cost of %j rejects with ERR_FLOODGATE_INVALID_COST',
    async (cost) => {
      await expect(limiter.consume('k', { cost: cost as number })).rejects.toMatchObject({
        code: 'ERR_FLOODGATE_INVALID_COST',
      })
    },
  )
  it('a cost of 0 is free: a peek that spends nothing', async () => {
    const free = createLimiter({ algorithm: fixedWindow({ limit: 2, window: '1s' }), clock: () => 0 })
    for (let i = 0; i < 5; i++) expect((await free.consume('k', { cost: 0 })).allowed).toBe(true)
    expect((await free.consume('k')).remaining).toBe(1)
    await free.consume('k')
    expect(await free.consume('k')).toMatchObject({ allowed: false })
    expect(await free.consume('k', { cost: 0 })).toMatchObject({ allowed: true, remaining: 0 })
  })

  it('a cost is counted to 1/1024 of a unit, exactly: a tiny cost is never free', async () => {
    for (const algorithm of [
      fixedWindow({ limit: 1, window: '1s' }),
      slidingWindowCounter({ limit: 1, window: '1s' }),
      tokenBucket({ capacity: 1, refillRate: 1, interval: '1h' }),
      gcra({ rate: 1, period: '1h', burst: 1 }),
    ]) {
      const tiny = createLimiter({ algorithm, clock: () => 0 })
      let passed = 0
      for (let i = 0; i < 1100; i++) if ((await tiny.consume('k', { cost: 1e-300 })).allowed) passed++
      expect(passed, algorithm.kind).toBe(1024)
      const tenths = createLimiter({ algorithm, clock: () => 0, prefix: 'tenths' })
      passed = 0
      for (let i = 0; i < 20; i++) if ((await tenths.consume('k', { cost: 0.125 })).allowed) passed++
      expect(passed, algorithm.kind).toBe(8)
    }
  })

  it('an empty or non-string key rejects', async () => {
    await expect(limiter.consume('')).rejects.toMatchObject({ code: 'ERR_FLOODGATE_INVALID_KEY' })
    await expect(limiter.consume(undefined as never)).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_INVALID_KEY',
    })
  })
})
