import { describe, expect, it } from 'vitest'
import {
  fixedWindow,
  gcra,
  MemoryStore,
  RateLimitConfigError,
  type RateLimitOptions,
  type RequestInfo,
  slidingWindowCounter,
  tokenBucket,
} from '../../src/index.js'
import { createRateLimitHandler } from '../../src/internal.js'

// The API gateway's throttling example: an account ceiling of 10,000 req/s, a stage of 1,000 req/s under it, a route of 100.
const account = {
  name: 'account',
  key: 'global' as const,
  algorithm: tokenBucket({ capacity: 10_000, refillRate: 10_000 }),
}
const stage = {
  name: 'stage',
  key: 'global' as const,
  algorithm: tokenBucket({ capacity: 1_000, refillRate: 1_000 }),
}
const route = {
  name: 'route',
  key: 'endpoint' as const,
  algorithm: tokenBucket({ capacity: 100, refillRate: 100 }),
}

const req = (path = '/items', method = 'GET'): RequestInfo => ({
  ip: '203.0.113.7',
  method,
  route: path,
  path,
  headers: {},
  native: {},
})

const configError = (options: RateLimitOptions): RateLimitConfigError => {
  try {
    createRateLimitHandler(options)
  } catch (error) {
    expect(error).toBeInstanceOf(RateLimitConfigError)
    return error as RateLimitConfigError
  }
  throw new Error('expected a RateLimitConfigError')
}

describe('tiers', () => {
  it('account > stage > route is accepted; an inner tier looser than an outer one is an error naming both', () => {
    expect(() => createRateLimitHandler({ tiers: [account, stage, route] })).not.toThrow()
    const looser = configError({ tiers: [account, route, stage] })
    expect(looser.code).toBe('ERR_FLOODGATE_TIER_NOT_TIGHTER')
    expect(looser.option).toBe('rateLimit.tiers[2]')
    expect(looser.message).toContain("got 'stage: 1000 a second, 1000 at once' (string)")
    expect(looser.message).toContain("'route' (100 a second, 100 at once) in `rateLimit.tiers[1]`")
    expect(looser.message).toContain('can only be tighter')
    // A burst looser than the outer tier's is refused too, even at a lower rate.
    const burst = configError({
      tiers: [
        stage,
        { name: 'spiky', key: 'global', algorithm: tokenBucket({ capacity: 5_000, refillRate: 10 }) },
      ],
    })
    expect(burst.message).toContain("'spiky: 10 a second, 5000 at once'")
    // Different algorithms compare by rate and burst.
    expect(() =>
      createRateLimitHandler({
        tiers: [
          { name: 'a', key: 'global', algorithm: slidingWindowCounter({ limit: 60_000, window: '1m' }) },
          { name: 'b', key: 'global', algorithm: gcra({ rate: 500, period: '1s', burst: 500 }) },
          { name: 'c', key: 'ip', algorithm: fixedWindow({ limit: 100, window: '1s' }) },
        ],
      }),
    ).not.toThrow()
  })

  it('every tier is checked on every request; a refused request spends nothing in any tier', async () => {
    const handler = createRateLimitHandler({
      clock: () => 0,
      tiers: [
        { name: 'account', key: 'global', algorithm: fixedWindow({ limit: 5, window: '1m' }) },
        { name: 'route', key: 'endpoint', algorithm: fixedWindow({ limit: 2, window: '1m' }) },
      ],
    })
    const a = [
      await handler.handle(req('/a')),
      await handler.handle(req('/a')),
      await handler.handle(req('/a')),
    ]
    expect(a.map((o) => o.kind === 'pass')).toEqual([true, true, false])
    expect(a[2]!.decision!.policy).toBe('route')
    // The refused /a took nothing from the account: 3 of 5 left, so /b gets 2 and /c 1.
    const rest = [
      await handler.handle(req('/b')),
      await handler.handle(req('/b')),
      await handler.handle(req('/c')),
    ]
    expect(rest.map((o) => o.kind === 'pass')).toEqual([true, true, true])
    const over = await handler.handle(req('/c'))
    expect([over.kind, over.decision!.policy]).toEqual(['answer', 'account'])
  })

  it('two apps on one store share a tier by its name, whatever their prefixes', async () => {
    const store = new MemoryStore()
    const account = {
      name: 'account',
      key: 'global' as const,
      algorithm: fixedWindow({ limit: 3, window: '1m' }),
    }
    const one = createRateLimitHandler({ store, clock: () => 0, prefix: 'one', tiers: [account] })
    const two = createRateLimitHandler({ store, clock: () => 0, prefix: 'two', tiers: [account] })
    const all = [
      await one.handle(req()),
      await two.handle(req()),
      await one.handle(req()),
      await two.handle(req()),
    ]
    expect(all.map((o) => o.kind === 'pass')).toEqual([true, true, true, false])
  })

  it('a route tier replaces the innermost tier for that route only, keeps the outer ones, and must be tighter', async () => {
    const handler = createRateLimitHandler({
      clock: () => 0,
      headers: 'draft-8',
      tiers: [
        { name: 'account', key: 'global', algorithm: fixedWindow({ limit: 10, window: '1m' }) },
        { name: 'route', key: 'endpoint', algorithm: fixedWindow({ limit: 5, window: '1m' }) },
      ],
      routes: { 'POST /reports': { limit: 1, window: '1m' } },
    })
    expect((await handler.handle(req('/reports', 'POST'))).headers['ratelimit-policy']).toBe(
      '"account";q=10;w=60, "route";q=1;w=60',
    )
    expect((await handler.handle(req('/reports', 'POST'))).kind).toBe('answer')
    expect((await handler.handle(req('/items'))).headers['ratelimit-policy']).toBe(
      '"account";q=10;w=60, "route";q=5;w=60',
    )
    const looser = configError({
      tiers: [{ name: 'route', key: 'endpoint', algorithm: fixedWindow({ limit: 5, window: '1m' }) }],
      routes: { 'GET /x': { limit: 50, window: '1m' } },
    })
    expect(looser.option).toBe("rateLimit.routes['GET /x']")
    expect(configError({ limit: 5, routes: { 'GET /x': { limit: 1, window: '1m' } } }).message).toContain(
      'left out unless `tiers` is given',
    )
  })
})
