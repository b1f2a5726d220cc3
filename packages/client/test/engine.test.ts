import { describe, expect, it } from 'vitest'
import { retryBudget } from '../src/budget.js'
import { type Attempts, createEngine, type RequestFacts, serverWait } from '../src/engine.js'
import { readRateLimit } from '../src/headers/index.js'
import { type ClientOptions, parseClientOptions } from '../src/options.js'

const GET: RequestFacts = {
  method: 'GET',
  url: 'https://a.test/',
  origin: 'https://a.test',
  idempotencyKey: false,
  replayable: true,
}
const engine = (options: ClientOptions = {}) =>
  createEngine(parseClientOptions({ now: () => 0, random: () => 0.5, ...options }))
const first = (): Attempts => ({ attempt: 1, previousBackoffMs: undefined })
const refused = new Headers({ 'retry-after': '5' })

describe('the retry decision', () => {
  it('retries a 429 of an idempotent request: Retry-After plus the backoff', () => {
    expect(engine().verdict(GET, first(), 429, refused)).toEqual({ retry: true, delayMs: 7_000 })
  })

  it.each([
    ['attempts', GET, { attempt: 3, previousBackoffMs: undefined }, refused],
    ['method', { ...GET, method: 'POST' }, first(), refused],
    ['body', { ...GET, replayable: false }, first(), refused],
    ['retry-after', GET, first(), new Headers({ 'retry-after': '61' })],
  ] as const)('gives up (%s) and returns the refusal', (reason, request, state, headers) => {
    expect(engine().verdict(request, { ...state }, 429, headers)).toEqual({ retry: false, reason })
  })

  it('an Idempotency-Key makes any method retryable', () => {
    expect(
      engine().verdict({ ...GET, method: 'PATCH', idempotencyKey: true }, first(), 503, refused).retry,
    ).toBe(true)
  })

  it('the budget: spent by retries, refilled by responses below 500 only', () => {
    const budget = retryBudget({ capacity: 10, retryCost: 5 })
    const e = engine({ budget })
    expect(e.verdict(GET, first(), 429, refused).retry).toBe(true)
    expect(e.verdict(GET, first(), 429, refused).retry).toBe(true)
    expect(e.verdict(GET, first(), 429, refused)).toEqual({ retry: false, reason: 'budget' })
    e.verdict(GET, first(), 500, new Headers())
    expect(budget.tokens).toBe(0)
    e.verdict(GET, first(), 404, new Headers())
    e.verdict(GET, { attempt: 2, previousBackoffMs: 0 }, 200, new Headers())
    expect(budget.tokens).toBe(6)
  })

  it('decorrelated jitter grows from the backoff drawn before', () => {
    const e = engine({ jitter: 'decorrelated', random: () => 1, maxAttempts: 10 })
    const state = first()
    const delays = [1, 2, 3].map(() => {
      const v = e.verdict(GET, state, 503, new Headers())
      state.attempt++
      return v.retry ? v.delayMs : -1
    })
    expect(delays).toEqual([6_000, 18_000, 30_000])
  })
})

describe('serverWait', () => {
  it('Retry-After first, else the longest reset among policies at 0, else none', () => {
    const at = (headers: Record<string, string>) => serverWait(readRateLimit(headers, 0))
    expect(at({ 'retry-after': '3', 'ratelimit-remaining': '0', 'ratelimit-reset': '9' })).toBe(3_000)
    expect(at({ ratelimit: '"a";r=0;t=4, "b";r=0;t=8, "c";r=5;t=60' })).toBe(8_000)
    expect(at({ 'ratelimit-remaining': '1', 'ratelimit-reset': '9' })).toBeUndefined()
  })
})
