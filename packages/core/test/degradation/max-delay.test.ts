// leakyBucket({ mode: 'shape', maxDelay }): a request that would wait longer than maxDelay is refused with
// the honest retry, spends nothing, and every path (limiter, handler, consumeAll, step) decides it alike.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type Algorithm,
  createLimiter,
  type Decision,
  type Duration,
  fixedWindow,
  leakyBucket,
  MemoryStore,
  RateLimitConfigError,
  type RequestInfo,
  type Store,
  step,
} from '../../src/index.js'
import { consumeAll, createRateLimitHandler } from '../../src/internal.js'

const T0 = Date.UTC(2026, 0, 1, 12)
const shaper = (maxDelay: Duration = '300ms', capacity = 10) =>
  leakyBucket({ capacity, leakRate: 1, interval: '100ms', mode: 'shape', maxDelay })

/** The MemoryStore answering through promises and without consumeAll, as a remote store does. */
function remote(memory = new MemoryStore()): Store & { refunds: number } {
  const store = {
    refunds: 0,
    consume: (a: Algorithm, k: string, c: number, n?: number) => Promise.resolve(memory.consume(a, k, c, n)),
    peek: (a: Algorithm, k: string, c: number, n?: number) => Promise.resolve(memory.peek(a, k, c, n)),
    refund: (a: Algorithm, k: string, c: number, n?: number) => {
      store.refunds++
      return Promise.resolve(memory.refund(a, k, c, n))
    },
    reset: (a: Algorithm, k: string) => Promise.resolve(memory.reset(a, k)),
    close: () => undefined,
  }
  return store
}

/** What the bucket in `state` would answer now: two states that answer alike hold the same level. */
function peekAt(algorithm: Algorithm, state: number[] | undefined, now: number): Decision {
  const buffer = new Float64Array(algorithm.stateSize)
  if (state) buffer.set(state)
  return algorithm.peek(buffer, 0, now, 1)
}

const info = (): RequestInfo<unknown> => ({
  ip: '203.0.113.9',
  method: 'GET',
  route: '/',
  path: '/',
  headers: {},
  native: {},
})

describe('leakyBucket maxDelay', () => {
  it('is validated: a duration, and with shaping only', () => {
    expect(() => leakyBucket({ capacity: 5, leakRate: 1, maxDelay: '1s' })).toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION', option: 'leakyBucket.maxDelay' }),
    )
    expect(() => shaper('soon' as Duration)).toThrow(RateLimitConfigError)
    expect(() => shaper(-1)).toThrow(expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_DURATION' }))
  })

  it('joins the id and the parameters; a bucket without it keeps its id', () => {
    const plain = leakyBucket({ capacity: 10, leakRate: 1, interval: '100ms', mode: 'shape' })
    expect(plain.id).toBe('lb:10,1,100,1')
    expect(plain.maxDelayMs).toBeUndefined()
    expect(shaper().id).toBe('lb:10,1,100,1,300')
    expect(shaper().params.maxDelayMs).toBe(300)
    expect(shaper('2s').id).not.toBe(shaper().id)
  })

  it('admits waits up to maxDelay, then refuses with retryAfterMs = wait - maxDelay, spending nothing', async () => {
    let now = T0
    const limiter = createLimiter({ algorithm: shaper(), clock: () => now })
    const delays: number[] = []
    for (let i = 0; i < 4; i++) delays.push((await limiter.consume('k')).delayMs)
    expect(delays).toEqual([0, 100, 200, 300])
    const refused = await limiter.consume('k')
    expect(refused).toMatchObject({
      allowed: false,
      retryAfterMs: 100,
      remaining: 0,
      resetMs: 400,
      delayMs: 0,
    })
    expect(await limiter.peek('k')).toMatchObject({ allowed: false, retryAfterMs: 100, remaining: 0 })
    now += 99
    expect((await limiter.consume('k')).allowed).toBe(false)
    now += 1 // waited exactly retryAfterMs
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, delayMs: 300 })
  })

  it('never lets remaining promise a request the bound would refuse', async () => {
    const limiter = createLimiter({ algorithm: shaper(), clock: () => T0 })
    expect((await limiter.peek('k')).remaining).toBe(4) // waits 0, 100, 200, 300
    expect((await limiter.consume('k')).remaining).toBe(3)
    expect((await limiter.consume('k', { cost: 2 })).remaining).toBe(1)
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, delayMs: 300, remaining: 0 })
  })

  it('tells a capacity refusal to come back when the bound admits it too', async () => {
    // Capacity 3 at 1 per 100 ms: the bucket is full at 300 ms of wait; a bound of 100 ms asks for 200 more.
    const limiter = createLimiter({ algorithm: shaper('100ms', 3), clock: () => T0 })
    await limiter.consume('k', { cost: 3 })
    const refused = await limiter.consume('k')
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 200, remaining: 0 })
  })

  it('decides alike on a remote store (give-back through the store) and on the memory store', async () => {
    const store = remote()
    const limiter = createLimiter({ algorithm: shaper(), store, clock: () => T0 })
    const local = createLimiter({ algorithm: shaper(), clock: () => T0 })
    for (let i = 0; i < 7; i++) {
      expect(await limiter.consume('k')).toEqual(await local.consume('k'))
    }
    expect(store.refunds).toBe(3)
  })

  it('in the HTTP handler: 429 with Retry-After, and the other policies get their units back', async () => {
    const memory = new MemoryStore()
    for (const store of [memory, remote()]) {
      const slept: number[] = []
      const handler = createRateLimitHandler({
        store,
        clock: () => T0,
        sleep: async (ms: number) => void slept.push(ms),
        limits: [
          { name: 'burst', key: 'ip', algorithm: shaper() },
          { name: 'minute', key: 'ip', algorithm: fixedWindow({ limit: 100, window: '1m' }) },
        ],
      })
      const outcomes = []
      for (let i = 0; i < 6; i++) outcomes.push(await handler.handle(info()))
      expect(outcomes.map((o) => o.status ?? 'pass')).toEqual(['pass', 'pass', 'pass', 'pass', 429, 429])
      expect(slept).toEqual([100, 200, 300])
      expect(outcomes[4]!.headers['retry-after']).toBe('1')
      expect(outcomes[4]!.decision?.policy).toBe('burst')
      // Four admitted requests spent four units of the minute's 100; the two refused spent none.
      expect(outcomes[3]!.headers['ratelimit-remaining']).toBe('0')
      const minuteOnly = createRateLimitHandler({
        store,
        clock: () => T0,
        limits: [{ name: 'minute', key: 'ip', algorithm: fixedWindow({ limit: 100, window: '1m' }) }],
      })
      expect((await minuteOnly.handle(info())).decision?.remaining).toBe(95)
    }
  })

  it('through consumeAll and step, as the limiter decides', async () => {
    const store = new MemoryStore()
    const item = { algorithm: shaper(), key: 'rl:{k}', cost: 1 }
    const all: boolean[] = []
    for (let i = 0; i < 5; i++) all.push((await consumeAll(store, [item], T0))[0]!.allowed)
    expect(all).toEqual([true, true, true, true, false])
    let state: number[] | undefined
    const stepped: Decision[] = []
    for (let i = 0; i < 5; i++) {
      const r = step(shaper(), state, T0)
      state = r.state
      stepped.push(r.decision)
    }
    expect(stepped.map((d) => d.allowed)).toEqual([true, true, true, true, false])
    expect(stepped[4]!.retryAfterMs).toBe(100)
    expect(step(shaper(), state, T0 + 100).decision).toMatchObject({ allowed: true, delayMs: 300 })
  })

  it('property: no admitted wait above maxDelay; remaining k means k unit requests pass now; retry passes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.constantFrom(1, 2, 0.5)), { maxLength: 40 }),
        (capacity, leakRate, maxDelay, ops) => {
          const algorithm = leakyBucket({ capacity, leakRate, interval: '1s', mode: 'shape', maxDelay })
          let state: number[] | undefined
          let now = T0
          for (const [gap, cost] of ops) {
            now += gap
            const { state: next, decision } = step(algorithm, state, now, cost)
            if (decision.allowed) {
              expect(decision.delayMs).toBeLessThanOrEqual(maxDelay)
              let probe = next
              for (let k = 0; k < decision.remaining; k++) {
                const r = step(algorithm, probe, now, 1)
                expect(r.decision.allowed, `unit request ${k + 1} of ${decision.remaining}`).toBe(true)
                probe = r.state
              }
            } else {
              expect(peekAt(algorithm, next, now)).toEqual(peekAt(algorithm, state, now)) // spent nothing
              if (Number.isFinite(decision.retryAfterMs)) {
                expect(step(algorithm, next, now + decision.retryAfterMs, cost).decision.allowed).toBe(true)
              }
            }
            state = next
          }
        },
      ),
      { numRuns: 500 },
    )
  })
})
