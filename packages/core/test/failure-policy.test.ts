import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  createLimiter,
  type Decision,
  fixedWindow,
  MemoryStore,
  RateLimitConfigError,
  type Store,
} from '../src/index.js'
import { consumeAll, createRateLimitHandler, RATE_LIMIT_DEFAULTS } from '../src/internal.js'
import { requestFrom } from './request-info.js'

// createLimiter's failure policy: the store reports that it could not answer (it rejects, throws, or passes
// storeTimeout), and the limiter's failMode alone decides: 'open', 'closed' or { fallback }. The adapters' side
// is in the adapter suite (store-down, and a real Redis stopped and frozen); the stores' in their failure tests.
const algorithm = fixedWindow({ limit: 2, window: '1h' })
const source = (d: Decision) => (d as Decision & { source?: string }).source

/** A store whose every call fails as `how` says: rejects, throws, or never answers. */
function down(how: 'reject' | 'throw' | 'hang' = 'reject'): Store {
  const fail = (): any => {
    if (how === 'throw') throw new Error('store is down')
    if (how === 'reject') return Promise.reject(new Error('store is down'))
    return new Promise(() => {})
  }
  return { consume: fail, peek: fail, refund: fail, reset: () => undefined, close: () => undefined }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('createLimiter failMode', () => {
  it.each(['reject', 'throw'] as const)(
    "'open' (the default) allows when the store would %s",
    async (how) => {
      const limiter = createLimiter({ algorithm, store: down(how), name: 'api' })
      const decision = await limiter.consume('k')
      expect(decision).toMatchObject({ allowed: true, remaining: 1, retryAfterMs: 0, policy: 'api' })
      expect(source(decision)).toBe('fail-open')
      expect((await limiter.peek('k')).remaining).toBe(2)
    },
  )

  it("'closed' refuses with retryAfterMs 1000 (the 503's Retry-After: 1 over HTTP)", async () => {
    const limiter = createLimiter({ algorithm, store: down(), failMode: 'closed', name: 'api' })
    const decision = await limiter.consume('k')
    expect(decision).toMatchObject({
      allowed: false,
      limit: 2,
      remaining: 0,
      retryAfterMs: 1000,
      resetMs: 1000,
      policy: 'api',
    })
    expect(source(decision)).toBe('fail-closed')
    expect((await limiter.peek('k')).allowed).toBe(false)
  })

  it('{ fallback } decides on the fallback store: its quota, its refusal; refund and reset reach it', async () => {
    const fallback = new MemoryStore()
    const limiter = createLimiter({ algorithm, store: down(), failMode: { fallback } })
    const decisions = [await limiter.consume('k'), await limiter.consume('k'), await limiter.consume('k')]
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false])
    expect(decisions.map(source)).toEqual(['fallback', 'fallback', 'fallback'])
    await expect(limiter.refund('k')).resolves.toBeUndefined() // the store rejects: the fallback takes it
    expect((await limiter.peek('k')).remaining).toBe(1)
    await limiter.reset('k')
    expect((await fallback.peek(algorithm, 'k', 1)).remaining).toBe(2)
  })

  it('a fallback store that fails too lets the decision through, as open would; nothing rejects', async () => {
    const limiter = createLimiter({ algorithm, store: down(), failMode: { fallback: down('throw') } })
    expect(source(await limiter.consume('k'))).toBe('fail-open')
    const rejecting = createLimiter({ algorithm, store: down(), failMode: { fallback: down('reject') } })
    expect(source(await rejecting.consume('k'))).toBe('fail-open')
    await expect(rejecting.refund('k')).resolves.toBeUndefined()
  })

  it('a caller error is not a store failure: an invalid key or cost still rejects', async () => {
    const limiter = createLimiter({ algorithm, store: down(), failMode: 'open' })
    await expect(limiter.consume('')).rejects.toBeInstanceOf(RateLimitConfigError)
    await expect(limiter.consume('k', { cost: -1 })).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_INVALID_COST',
    })
  })

  it('a store that never answers is bounded by storeTimeout (default 500 ms), on createLimiter and rateLimit alike', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const limiter = createLimiter({ algorithm, store: down('hang'), failMode: 'closed' })
    const handler = createRateLimitHandler({ store: down('hang'), failMode: 'closed', onError: () => {} })
    let decided: Decision | undefined
    void limiter.consume('k').then((d) => {
      decided = d
    })
    let answered: number | undefined
    void Promise.resolve(handler.handle(requestFrom('203.0.113.9'))).then((o) => {
      answered = o.status
    })
    await vi.advanceTimersByTimeAsync(499)
    expect([decided, answered]).toEqual([undefined, undefined])
    await vi.advanceTimersByTimeAsync(1)
    expect(decided).toMatchObject({ allowed: false, retryAfterMs: 1000 })
    expect(answered).toBe(503)
    expect(RATE_LIMIT_DEFAULTS.storeTimeout).toBe('500ms')
  })

  it('a store that bounds its own calls is given storeTimeout (answerWithin) and raced against no timer', async () => {
    const bounds: number[] = []
    let resolve: (d: Decision) => void = () => {}
    const store: Store = {
      ...new MemoryStore(),
      consume: () => new Promise<Decision>((r) => (resolve = r)),
      peek: () => Promise.reject(new Error('unused')),
      refund: () => undefined,
      reset: () => undefined,
      close: () => undefined,
      answerWithin: (ms) => bounds.push(ms),
    }
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const limiter = createLimiter({ algorithm, store, storeTimeout: '250ms' })
    createRateLimitHandler({ store, storeTimeout: 100 })
    expect(bounds).toEqual([250, 100])
    const pending = limiter.consume('k')
    await vi.advanceTimersByTimeAsync(10_000) // no timer of the limiter's: the store's bound is its own
    const late = {
      allowed: true,
      limit: 2,
      remaining: 1,
      resetMs: 0,
      retryAfterMs: 0,
      delayMs: 0,
      policy: '',
    }
    resolve(late)
    expect(await pending).toMatchObject({ allowed: true, remaining: 1 })
    expect(source(await pending)).toBeUndefined()
  })

  it('refuses at creation what is not a failure mode or a timeout, naming the option', () => {
    const refused = (options: Record<string, unknown>) => {
      try {
        createLimiter({ algorithm, ...options })
      } catch (error) {
        return error as RateLimitConfigError
      }
      throw new Error('expected a RateLimitConfigError')
    }
    for (const failMode of [
      'fallback',
      'sometimes',
      { fallback: {} },
      { fallback: new MemoryStore(), extra: 1 },
    ]) {
      const error = refused({ failMode })
      expect(error).toBeInstanceOf(RateLimitConfigError)
      expect(error.option).toMatch(/^createLimiter\.failMode/)
    }
    expect(refused({ failMode: 'fallback' }).message).toContain("'open', 'closed' or { fallback: store }")
    expect(refused({ storeTimeout: false }).option).toBe('createLimiter.storeTimeout')
    expect(refused({ storeTimeout: -5 }).code).toBe('ERR_FLOODGATE_INVALID_DURATION')
  })
})

describe('consumeAll when the store cannot decide a later policy', () => {
  it('gives back what the earlier ones took, then rejects (for the limiter to decide)', async () => {
    const memory = new MemoryStore()
    const failing: Store = {
      consume: (a, k, c, now) =>
        k === 'b' ? Promise.reject(new Error('down')) : memory.consume(a, k, c, now),
      peek: (a, k, c, now) => memory.peek(a, k, c, now),
      refund: (a, k, c, now) => memory.refund(a, k, c, now),
      reset: (a, k) => memory.reset(a, k),
      close: () => undefined,
    }
    const items = [
      { algorithm, key: 'a', cost: 1 },
      { algorithm, key: 'b', cost: 1 },
    ]
    await expect(consumeAll(failing, items)).rejects.toThrow('down')
    expect((await memory.peek(algorithm, 'a', 1)).remaining).toBe(2)
  })

  it('a refund the store cannot make does not turn a refusal into a failure', async () => {
    const memory = new MemoryStore()
    const tight = fixedWindow({ limit: 1, window: '1h' })
    await memory.consume(tight, 'b', 1)
    const store: Store = {
      consume: (a, k, c, now) => memory.consume(a, k, c, now),
      peek: (a, k, c, now) => memory.peek(a, k, c, now),
      refund: () => Promise.reject(new Error('down')),
      reset: (a, k) => memory.reset(a, k),
      close: () => undefined,
    }
    const decisions = await consumeAll(store, [
      { algorithm, key: 'a', cost: 1 },
      { algorithm: tight, key: 'b', cost: 1 },
    ])
    expect(decisions.map((d) => d.allowed)).toEqual([true, false])
  })
})
