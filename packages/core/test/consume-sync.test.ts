import { describe, expect, it } from 'vitest'
import {
  createLimiter,
  fixedWindow,
  leakyBucket,
  MemoryStore,
  RateLimitConfigError,
  RateLimitCostError,
  tokenBucket,
} from '../src/index.js'
import { promisedStore } from './promised-store.js'

const START = Date.UTC(2026, 0, 1, 12)

describe('consumeSync and peekSync', () => {
  it('decide in this tick on the MemoryStore, as consume does: 3 of 5 pass at a limit of 3', () => {
    let now = START
    const limiter = createLimiter({
      algorithm: fixedWindow({ limit: 3, window: '1m' }),
      clock: () => now,
      name: 'ws',
    })
    const decisions = Array.from({ length: 5 }, () => limiter.consumeSync('socket-1'))
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false])
    expect(decisions[3]!.policy).toBe('ws')
    expect(decisions[3]!.retryAfterMs).toBe(60_000)
    expect(limiter.peekSync('socket-1').remaining).toBe(0)
    expect(limiter.consumeSync('socket-2').remaining).toBe(2)
    now += 60_000
    expect(limiter.consumeSync('socket-1').allowed).toBe(true)
  })

  it('share state with consume and peek: the same counts whichever is called', async () => {
    const limiter = createLimiter({ algorithm: tokenBucket({ capacity: 4, refillRate: 1, interval: '1h' }) })
    limiter.consumeSync('k', { cost: 2 })
    expect((await limiter.consume('k')).remaining).toBe(1)
    expect(limiter.peekSync('k', { cost: 2 }).allowed).toBe(false)
    expect((await limiter.peek('k')).remaining).toBe(1)
    expect(limiter.consumeSync('k', { cost: 0 }).remaining).toBe(1) // free: a peek
  })

  it('a shaping bucket over maxDelay refuses and spends nothing, in this tick', () => {
    let now = START
    const limiter = createLimiter({
      algorithm: leakyBucket({ capacity: 10, leakRate: 1, interval: '1s', mode: 'shape', maxDelay: '2s' }),
      clock: () => now,
    })
    const delays = Array.from({ length: 4 }, () => limiter.consumeSync('k'))
    expect(delays.map((d) => [d.allowed, d.delayMs])).toEqual([
      [true, 0],
      [true, 1000],
      [true, 2000],
      [false, 0],
    ])
    now += 1000
    expect(limiter.consumeSync('k').allowed).toBe(true) // the refusal spent nothing
  })

  it('throw on a store that answers with promises, naming the method, and spend nothing', async () => {
    const store = promisedStore()
    const limiter = createLimiter({ algorithm: fixedWindow({ limit: 1, window: '1m' }), store })
    expect(() => limiter.consumeSync('k')).toThrow(RateLimitConfigError)
    expect(() => limiter.peekSync('k')).toThrow(
      expect.objectContaining({
        code: 'ERR_FLOODGATE_STORE_NOT_SYNCHRONOUS',
        message: expect.stringContaining('peekSync'),
      }),
    )
    expect((await limiter.consume('k')).allowed).toBe(true)
  })

  it('throw when a store that says it is synchronous answers with a promise: never a promise as a decision', () => {
    class AsyncMemory extends MemoryStore {
      override consume(...args: Parameters<MemoryStore['consume']>) {
        return Promise.resolve(super.consume(...args)) as never
      }
      override peek(...args: Parameters<MemoryStore['peek']>) {
        return Promise.resolve(super.peek(...args)) as never
      }
    }
    const limiter = createLimiter({
      algorithm: fixedWindow({ limit: 5, window: '1m' }),
      store: new AsyncMemory(),
    })
    expect(() => limiter.consumeSync('k')).toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_STORE_NOT_SYNCHRONOUS' }),
    )
    expect(() => limiter.peekSync('k')).toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_STORE_NOT_SYNCHRONOUS' }),
    )
  })

  it('throw on an invalid key or cost as consume rejects', () => {
    const limiter = createLimiter({ algorithm: fixedWindow({ limit: 1, window: '1m' }) })
    expect(() => limiter.consumeSync('')).toThrow(RateLimitConfigError)
    expect(() => limiter.consumeSync('k', { cost: -1 })).toThrow(RateLimitCostError)
    expect(() => limiter.consumeSync('k', { cost: Number.NaN })).toThrow(RateLimitCostError)
    expect(limiter.consumeSync('k').allowed).toBe(true)
  })
})

describe('store keys of createLimiter', () => {
  it('a key that needs no encoding is its own store key; no other key can share its bucket', () => {
    const store = new MemoryStore()
    const algorithm = fixedWindow({ limit: 1, window: '1m' })
    const plain = createLimiter({ algorithm, store })
    const prefixed = createLimiter({ algorithm, store, prefix: 'p' })
    // Each of these is its own caller: one request passes for each, on one shared store.
    const callers: [typeof plain, string][] = [
      [plain, 'x'],
      [plain, '{x}'],
      [plain, 'p:{x}'],
      [prefixed, 'x'],
      [plain, '%7Bx%7D'],
      [plain, 'x'.repeat(300)],
    ]
    for (const [limiter, key] of callers) expect(limiter.consumeSync(key).allowed).toBe(true)
    for (const [limiter, key] of callers) expect(limiter.consumeSync(key).allowed).toBe(false)
    expect(store.size).toBe(callers.length)
  })
})
