import { describe, expect, it } from 'vitest'
import {
  type Algorithm,
  concurrency,
  createLimiter,
  fixedWindow,
  MemoryStore,
  RateLimitConfigError,
  type Store,
  step,
} from '../src/index.js'
import { createRateLimitHandler } from '../src/internal.js'

const T0 = Date.UTC(2026, 0, 1)

describe('concurrency({ limit, lease })', () => {
  it('checks its options at creation, naming the option, the value and what is allowed', () => {
    expect(() => concurrency({ limit: 0, lease: '30s' })).toThrow(/limit/)
    expect(() => concurrency({ limit: 2.5, lease: '30s' })).toThrow(RateLimitConfigError)
    expect(() => concurrency({ limit: 2, lease: 'soon' as never })).toThrow(/lease.*duration/s)
    expect(() => concurrency({ limit: 2 } as never)).toThrow(/lease/)
    expect(() => concurrency({ limit: 2, lease: '30s', window: '1m' } as never)).toThrow(RateLimitConfigError)
    expect(concurrency({ limit: 2, lease: '30s' })).toMatchObject({
      kind: 'concurrency',
      limit: 2,
      windowMs: 30_000,
    })
  })

  it('step(): a lease per admission, never the same twice; a refund gives nothing back', () => {
    const algorithm = concurrency({ limit: 2, lease: '1s' })
    const first = step(algorithm, undefined, T0)
    const second = step(algorithm, first.state, T0)
    expect([first.decision.lease, second.decision.lease].every((l) => typeof l === 'string')).toBe(true)
    expect(first.decision.lease).not.toBe(second.decision.lease)
    expect(step(algorithm, second.state, T0).decision).toMatchObject({ allowed: false, retryAfterMs: 1000 })
    expect(second.ttlMs).toBe(1000)
  })

  it('the limiter: release gives back exactly its lease, once; after the lease expired, nothing', async () => {
    let now = T0
    const limiter = createLimiter({ algorithm: concurrency({ limit: 2, lease: '1s' }), clock: () => now })
    const a = await limiter.consume('k')
    const b = await limiter.consume('k')
    expect((await limiter.consume('k')).allowed).toBe(false)
    await limiter.release('k', a.lease!)
    await limiter.release('k', a.lease!)
    expect((await limiter.peek('k')).remaining).toBe(1)
    now += 1000 // b expires
    const c = await limiter.consume('k')
    await limiter.release('k', b.lease!) // expired: frees nothing of c's
    expect((await limiter.peek('k')).remaining).toBe(1)
    await limiter.release('k', c.lease!)
    expect((await limiter.peek('k')).remaining).toBe(2)
    await expect(limiter.release('k', '' as string)).rejects.toThrow(RateLimitConfigError)
  })

  it('a store without release cannot run it: refused at creation, by the limiter and the middleware', () => {
    const memory = new MemoryStore()
    const noRelease: Store = {
      consume: (a, k, c, n) => memory.consume(a, k, c, n),
      peek: (a, k, c, n) => memory.peek(a, k, c, n),
      refund: (a, k, c, n) => memory.refund(a, k, c, n),
      reset: (a, k) => memory.reset(a, k),
      close: () => undefined,
    }
    const algorithm: Algorithm = concurrency({ limit: 2, lease: '30s' })
    expect(() => createLimiter({ algorithm, store: noRelease })).toThrow(RateLimitConfigError)
    expect(() => createRateLimitHandler({ store: noRelease, limits: [{ name: 'c', algorithm }] })).toThrow(
      /release/,
    )
    expect(() =>
      createLimiter({ algorithm: fixedWindow({ limit: 1, window: '1s' }), store: noRelease }),
    ).not.toThrow()
  })

  it('the handler: a passed request keeps its lease, given back when the response completes, whatever its status', async () => {
    const store = new MemoryStore()
    const algorithm = concurrency({ limit: 1, lease: '1m' })
    const handler = createRateLimitHandler({
      store,
      clock: () => T0,
      limits: [{ name: 'inflight', key: 'global', algorithm }],
    })
    expect(handler.refunds).toBe(true) // adapters listen for every response's end
    const info = { ip: '203.0.113.1', method: 'GET', route: '/', path: '/', headers: {}, native: {} }
    const first = await handler.handle(info)
    expect(first.kind).toBe('pass')
    expect(first.items?.[0]?.lease).toBeTypeOf('string')
    expect((await handler.handle(info)).kind).toBe('answer')
    handler.complete(first, 200)
    handler.complete(first, 200) // once
    const second = await handler.handle(info)
    expect(second.kind).toBe('pass')
    handler.complete(second, 0) // the client left
    expect((await handler.handle(info)).kind).toBe('pass')
  })
})
