import { describe, expect, it, vi } from 'vitest'
import {
  type Algorithm,
  fixedWindow,
  MemoryStore,
  type Outcome,
  RateLimitConfigError,
  type RateLimitOptions,
  type Store,
  tokenBucket,
} from '../../src/index.js'
import { createRateLimitHandler } from '../../src/internal.js'
import { requestFrom } from '../request-info.js'

/** 2026-01-01T12:00:10Z: ten seconds into a minute. */
const START = Date.UTC(2026, 0, 1, 12, 0, 10)
const req = () => requestFrom('203.0.113.7')
const flush = () => new Promise((resolve) => setImmediate(resolve))

/** A limiter over a MemoryStore on a fixed clock, with its errors collected. */
function limiter(options: RateLimitOptions) {
  const store = new MemoryStore()
  const errors: { code?: string }[] = []
  const handler = createRateLimitHandler({
    store,
    clock: () => START,
    onError: (error) => errors.push(error as { code?: string }),
    ...options,
  })
  const handle = async () => (await handler.handle(req())) as Outcome
  const codes = () => errors.map((e) => e.code)
  return { store, handler, handle, codes }
}

const tenPerMinute = () => fixedWindow({ limit: 10, window: '1m' })

describe('settled costs', () => {
  it('charges the difference when the actual cost is above the estimate: the key goes over, and the next request waits with an honest Retry-After', async () => {
    const { handler, handle, codes } = limiter({ algorithm: tenPerMinute(), cost: 2, settle: () => 7 })
    expect(handler.refunds).toBe(true)
    const first = await handle()
    expect(first.decisions[0]!.remaining).toBe(8)
    handler.complete(first, 200, {})
    const second = await handle()
    expect(second.decisions[0]!.remaining).toBe(1) // 7 settled + 2 estimated
    handler.complete(second, 200, {}) // 14 of 10: over the limit
    const refused = await handle()
    expect(refused).toMatchObject({ kind: 'answer', status: 429 })
    expect(refused.headers['retry-after']).toBe('50') // the window ends at 12:01:00
    expect(codes()).toEqual([])
  })

  it('a bucket charged past its capacity is in debt: the next request waits for it to drain', async () => {
    const { handler, handle } = limiter({
      algorithm: tokenBucket({ capacity: 10, refillRate: 1, interval: '1s' }),
      settle: () => 15,
    })
    handler.complete(await handle(), 200, {})
    const refused = await handle()
    expect(refused.status).toBe(429)
    expect(refused.headers['retry-after']).toBe('6') // 15 + 1 of 10, one a second
  })

  it('gives back the difference when the actual cost is below the estimate', async () => {
    const { handler, handle } = limiter({ algorithm: tenPerMinute(), cost: 5, settle: () => 0.5 })
    const first = await handle()
    expect(first.decisions[0]!.remaining).toBe(5)
    handler.complete(first, 200, {})
    expect((await handle()).decisions[0]!.remaining).toBe(4) // 0.5 + 5 of 10
  })

  it('calls settle with the response object and the request, once, and waits for an async one', async () => {
    const settle = vi.fn(async (_res: unknown, _req: unknown) => 6)
    const { handler, handle } = limiter({ algorithm: tenPerMinute(), settle })
    const native = { url: '/chat' }
    const outcome = (await handler.handle({ ...req(), native })) as Outcome
    const response = { tokens: 6 }
    handler.complete(outcome, 200, response)
    handler.complete(outcome, 200, response) // twice: settled once
    await flush()
    expect(settle).toHaveBeenCalledTimes(1)
    expect(settle.mock.calls[0]![0]).toBe(response)
    expect(settle.mock.calls[0]![1]).toBe(native)
    expect((await handle()).decisions[0]!.remaining).toBe(3)
  })

  it('a settle that throws, rejects or returns a non-cost is reported and the estimate stands', async () => {
    for (const [settle, code] of [
      [
        () => {
          throw new Error('no usage')
        },
        'ERR_FLOODGATE_FUNCTION_FAILED',
      ],
      [() => Promise.reject(new Error('no usage')), 'ERR_FLOODGATE_FUNCTION_FAILED'],
      [() => 'many', 'ERR_FLOODGATE_INVALID_COST'],
      [() => -1, 'ERR_FLOODGATE_INVALID_COST'],
      [async () => Number.NaN, 'ERR_FLOODGATE_INVALID_COST'],
    ] as const) {
      const { handler, handle, codes } = limiter({
        algorithm: tenPerMinute(),
        cost: 3,
        settle: settle as () => number,
      })
      handler.complete(await handle(), 200, {})
      await flush()
      expect(codes()).toEqual([code])
      expect((await handle()).decisions[0]!.remaining).toBe(4) // 3 + 3: the estimate stood
    }
  })

  it('req.rateLimit.settle(n) settles now, and the settle function is then not called; a second call does nothing', async () => {
    const settle = vi.fn(() => 1)
    const { handler, handle, codes } = limiter({ algorithm: tenPerMinute(), settle })
    const outcome = await handle()
    outcome.rateLimit!.settle(6)
    expect((await handle()).decisions[0]!.remaining).toBe(3) // 6 + 1
    outcome.rateLimit!.settle(1) // settled already: nothing
    handler.complete(outcome, 200, {})
    await flush()
    expect(settle).not.toHaveBeenCalled()
    expect((await handle()).decisions[0]!.remaining).toBe(2)
    expect(codes()).toEqual([])
  })

  it('req.rateLimit.settle(n) with a non-cost is reported, and the estimate stands', async () => {
    const { handle, codes } = limiter({ algorithm: tenPerMinute(), cost: 2, settle: () => 1 })
    const outcome = await handle()
    outcome.rateLimit!.settle(Number.POSITIVE_INFINITY)
    expect(codes()).toEqual(['ERR_FLOODGATE_INVALID_COST'])
    expect((await handle()).decisions[0]!.remaining).toBe(6)
  })

  it('a request refused up front is not settled', async () => {
    const settle = vi.fn(() => 1)
    const { handler, handle } = limiter({ algorithm: fixedWindow({ limit: 1, window: '1m' }), settle })
    await handle()
    const refused = await handle()
    expect(refused.kind).toBe('answer')
    expect(refused.settlement).toBeUndefined()
    handler.complete(refused, 429, {})
    await flush()
    expect(settle).not.toHaveBeenCalled()
  })

  it('a request a later limiter refuses gives back what it spent and is never settled', async () => {
    const settle = vi.fn(() => 9)
    const store = new MemoryStore()
    const app = createRateLimitHandler({ store, clock: () => START, algorithm: tenPerMinute(), settle })
    const route = createRateLimitHandler({
      store,
      clock: () => START,
      prefix: 'route',
      algorithm: fixedWindow({ limit: 1, window: '1m' }),
    })
    const first = (await app.handle(req())) as Outcome
    await route.handle(req(), first.rateLimit)
    const second = (await app.handle(req())) as Outcome
    expect((await route.handle(req(), second.rateLimit)).status).toBe(429)
    app.complete(second, 429, {})
    await flush()
    expect(settle).not.toHaveBeenCalled()
    app.complete(first, 200, {})
    await flush()
    expect(settle).toHaveBeenCalledTimes(1)
    expect(((await app.handle(req())) as Outcome).decisions[0]!.remaining).toBe(0) // 9 + 1
  })

  it('req.rateLimit.settle(n) settles every limiter on the request', async () => {
    const store = new MemoryStore()
    const options = { store, clock: () => START, algorithm: tenPerMinute(), settle: () => 1 }
    const app = createRateLimitHandler(options)
    const route = createRateLimitHandler({ ...options, prefix: 'route' })
    const first = (await app.handle(req())) as Outcome
    const second = (await route.handle(req(), first.rateLimit)) as Outcome
    second.rateLimit!.settle(4)
    expect(((await app.handle(req())) as Outcome).decisions[0]!.remaining).toBe(5)
    expect(((await route.handle(req())) as Outcome).decisions[0]!.remaining).toBe(5)
  })

  it('with skipFailedRequests, a failed response gives back everything and is not settled', async () => {
    const settle = vi.fn(() => 8)
    const { handler, handle } = limiter({ algorithm: tenPerMinute(), settle, skipFailedRequests: true })
    const failed = await handle()
    handler.complete(failed, 0, {}) // the client left: a failure
    await flush()
    expect(settle).not.toHaveBeenCalled()
    const ok = await handle()
    expect(ok.decisions[0]!.remaining).toBe(9)
    handler.complete(ok, 200, {})
    expect(settle).toHaveBeenCalledTimes(1)
    expect((await handle()).decisions[0]!.remaining).toBe(1) // 8 + 1
  })

  it('a request settled explicitly whose response then fails gives back the settled cost (skipFailedRequests)', async () => {
    const { handler, handle } = limiter({
      algorithm: tenPerMinute(),
      settle: () => 1,
      skipFailedRequests: true,
    })
    const outcome = await handle()
    outcome.rateLimit!.settle(7)
    handler.complete(outcome, 500, {})
    expect((await handle()).decisions[0]!.remaining).toBe(9)
  })

  it('settles only the policies that settle: the top-level settle for those that take the top-level cost, a policy its own', async () => {
    const top = vi.fn(() => 4)
    const own = vi.fn(() => 20)
    const { handler, handle } = limiter({
      cost: 2,
      settle: top,
      limits: [
        { name: 'requests', key: 'ip', algorithm: fixedWindow({ limit: 100, window: '1m' }) },
        {
          name: 'tokens',
          key: 'ip',
          algorithm: fixedWindow({ limit: 100, window: '1m' }),
          cost: 10,
          settle: own,
        },
        { name: 'fixed', key: 'ip', algorithm: fixedWindow({ limit: 100, window: '1m' }), cost: 3 },
      ],
    })
    const outcome = await handle()
    expect(outcome.decisions.map((d) => d.remaining)).toEqual([98, 90, 97])
    handler.complete(outcome, 200, {})
    expect(top).toHaveBeenCalledTimes(1)
    expect(own).toHaveBeenCalledTimes(1)
    // requests: 4 + 2; tokens: 20 + 10; fixed: 3 + 3, never settled.
    expect((await handle()).decisions.map((d) => d.remaining)).toEqual([94, 70, 94])
  })

  it('without settle, nothing listens for the response and nothing is settled', async () => {
    const { handler, handle } = limiter({ algorithm: tenPerMinute() })
    expect(handler.refunds).toBe(false)
    const outcome = await handle()
    expect(outcome.settlement).toBeUndefined()
    outcome.rateLimit!.settle(5) // no policy settles: nothing
    expect((await handle()).decisions[0]!.remaining).toBe(8)
  })

  it('refuses at creation a store that cannot charge, naming it, and a settle that is not a function', () => {
    const memory = new MemoryStore()
    const noCharge: Store = {
      consume: (a, k, c, n) => memory.consume(a, k, c, n),
      peek: (a, k, c, n) => memory.peek(a, k, c, n),
      refund: (a, k, c, n) => memory.refund(a, k, c, n),
      reset: (a, k) => memory.reset(a, k),
      close: () => undefined,
    }
    class LedgerStore {}
    Object.setPrototypeOf(noCharge, LedgerStore.prototype)
    expect(() => createRateLimitHandler({ store: noCharge, settle: () => 1 })).toThrow(RateLimitConfigError)
    expect(() => createRateLimitHandler({ store: noCharge, settle: () => 1 })).toThrow(/LedgerStore has none/)
    // Without settle the same store is fine.
    expect(() => createRateLimitHandler({ store: noCharge })).not.toThrow()
    // A policy with its own cost and no settle of its own does not settle: no charge needed.
    expect(() =>
      createRateLimitHandler({
        store: noCharge,
        settle: () => 1,
        limits: [{ algorithm: tenPerMinute(), cost: 1 }],
      }),
    ).not.toThrow()
    expect(() => createRateLimitHandler({ settle: 5 as never })).toThrow(/rateLimit.settle/)
    expect(() =>
      createRateLimitHandler({ limits: [{ algorithm: tenPerMinute(), settle: 'x' as never }] }),
    ).toThrow(RateLimitConfigError)
  })

  it('refuses at creation a settling policy whose algorithm cannot be charged', () => {
    const { charge: _charge, ...uncharged } = tenPerMinute()
    expect(() => createRateLimitHandler({ algorithm: uncharged as Algorithm, settle: () => 1 })).toThrow(
      /cannot/,
    )
  })
})
