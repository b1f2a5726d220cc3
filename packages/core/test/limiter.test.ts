import { describe, expect, it } from 'vitest'
import { consumeAll, mostRestrictive } from '../src/consume-all.js'
import {
  createLimiter,
  type Decision,
  fixedWindow,
  MemoryStore,
  type Store,
  slidingWindowCounter,
  step,
  tokenBucket,
} from '../src/index.js'

describe('createLimiter', () => {
  it('consumes, peeks, refunds and resets', async () => {
    const limiter = createLimiter({
      algorithm: slidingWindowCounter({ limit: 3, window: '1m' }),
      clock: () => 0,
      name: 'api',
      prefix: 'rl',
    })
    expect(await limiter.consume('user:1')).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetMs: 120_000,
      retryAfterMs: 0,
      delayMs: 0,
      policy: 'api',
    })
    await limiter.consume('user:1', { cost: 2 })
    expect((await limiter.consume('user:1')).allowed).toBe(false)
    expect((await limiter.peek('user:1')).remaining).toBe(0)
    await limiter.refund('user:1', { cost: 2 })
    expect((await limiter.peek('user:1')).remaining).toBe(2)
    await limiter.reset('user:1')
    expect((await limiter.peek('user:1')).remaining).toBe(3)
  })

  it('keeps prefixes apart on one store', async () => {
    const store = new MemoryStore()
    const algorithm = fixedWindow({ limit: 1, window: '1m' })
    const a = createLimiter({ algorithm, store, prefix: 'a' })
    const b = createLimiter({ algorithm, store, prefix: 'b' })
    expect((await a.consume('k')).allowed).toBe(true)
    expect((await b.consume('k')).allowed).toBe(true)
    expect((await a.consume('k')).allowed).toBe(false)
  })

  it('bounds huge keys without merging them', async () => {
    const limiter = createLimiter({ algorithm: fixedWindow({ limit: 1, window: '1m' }) })
    const huge = 'x'.repeat(1_000_000)
    expect((await limiter.consume(huge)).allowed).toBe(true)
    expect((await limiter.consume(huge)).allowed).toBe(false)
    expect((await limiter.consume(`${huge}y`)).allowed).toBe(true)
  })

  it('works with an asynchronous third-party store', async () => {
    const memory = new MemoryStore()
    const asyncStore: Store = {
      consume: async (...args) => memory.consume(...args),
      peek: async (...args) => memory.peek(...args),
      refund: async (...args) => memory.refund(...args),
      reset: async (...args) => memory.reset(...args),
      close: async () => memory.close(),
    }
    const limiter = createLimiter({ algorithm: fixedWindow({ limit: 1, window: '1m' }), store: asyncStore })
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, policy: 'default' })
    expect(await limiter.consume('k')).toMatchObject({ allowed: false, policy: 'default' })
  })
})

describe('consumeAll: several policies as one request', () => {
  const perIp = fixedWindow({ limit: 5, window: '1m' })
  const perUser = fixedWindow({ limit: 2, window: '1m' })
  const items = [
    { algorithm: perIp, key: 'ip:1.2.3.4', cost: 1 },
    { algorithm: perUser, key: 'user:alice', cost: 1 },
  ]

  const stores: [string, () => Store][] = [
    ['atomic (MemoryStore.consumeAll)', () => new MemoryStore()],
    [
      'sequential with rollback (a store without consumeAll)',
      () => {
        const memory = new MemoryStore()
        return {
          consume: (...a) => memory.consume(...a),
          peek: (...a) => memory.peek(...a),
          refund: (...a) => memory.refund(...a),
          reset: (...a) => memory.reset(...a),
          close: () => memory.close(),
        }
      },
    ],
  ]
  it.each(stores)('%s: a refused request spends nothing in any policy', async (_name, make) => {
    const store = make()
    expect((await consumeAll(store, items, 0)).every((d) => d.allowed)).toBe(true)
    expect((await consumeAll(store, items, 0)).every((d) => d.allowed)).toBe(true)
    const refused = await consumeAll(store, items, 0)
    expect(refused.map((d) => d.allowed)).toEqual([true, false])
    expect((await store.peek(perIp, 'ip:1.2.3.4', 1, 0)).remaining).toBe(3)
  })

  it('mostRestrictive picks the refusal with the longest wait, else the fewest left', () => {
    const d = (
      policy: string,
      allowed: boolean,
      remaining: number,
      limit: number,
      retryAfterMs = 0,
    ): Decision => ({
      allowed,
      limit,
      remaining,
      resetMs: 0,
      retryAfterMs,
      delayMs: 0,
      policy,
    })
    expect(mostRestrictive([d('a', true, 5, 10), d('b', true, 50, 1000)])!.policy).toBe('b')
    expect(
      mostRestrictive([d('a', true, 5, 10), d('b', false, 0, 10, 5), d('c', false, 0, 10, 9)])!.policy,
    ).toBe('c')
    expect(mostRestrictive([])).toBeUndefined()
  })
})

describe('step: the pure form', () => {
  it('returns the new state, the decision and the ttl, and leaves the input alone', () => {
    const algorithm = tokenBucket({ capacity: 2, refillRate: 1, interval: '1s' })
    const first = step(algorithm, undefined, 0)
    expect(first.decision).toMatchObject({ allowed: true, remaining: 1 })
    expect(first.ttlMs).toBe(1000)
    const frozen = Object.freeze([...first.state])
    const second = step(algorithm, frozen, 0)
    expect(second.decision.remaining).toBe(0)
    expect(step(algorithm, second.state, 0).decision).toMatchObject({ allowed: false, retryAfterMs: 1000 })
  })
})

// Regression: public functions took wrong arguments silently. `limiter.consume('k', 5)` (a cost where the
// options object belongs) charged 1; `consumeAll` took any items (a negative cost, an empty key) to the store;
// `step` with a time of NaN answered a decision of NaNs; `mostRestrictive` of something not an array answered
// undefined. Each now fails at the call, naming what was
// expected, as an invalid option does.
describe('arguments are checked at the call', () => {
  const algorithm = fixedWindow({ limit: 10, window: '1m' })

  it("limiter methods refuse options that are not an object: consume('k', 5) does not charge 1", async () => {
    const store = new MemoryStore()
    const limiter = createLimiter({ algorithm, store })
    const invalid = expect.objectContaining({
      code: 'ERR_FLOODGATE_INVALID_OPTION',
      option: 'options',
      value: 5,
    })
    await expect(limiter.consume('k', 5 as never)).rejects.toThrow(invalid)
    expect(() => limiter.consumeSync('k', 5 as never)).toThrow(invalid)
    await expect(limiter.peek('k', 5 as never)).rejects.toThrow(invalid)
    await expect(limiter.refund('k', 5 as never)).rejects.toThrow(/an object of options like \{ cost: 5 \}/)
    expect(() => limiter.consumeSync('k', null as never)).toThrow(
      expect.objectContaining({ option: 'options' }),
    )
    // Nothing was spent by the refused calls.
    expect((await limiter.consume('k', { cost: 1 })).remaining).toBe(9)
  })

  it('consumeAll checks its store, items and time', async () => {
    const store = new MemoryStore()
    const item = { algorithm, key: 'k', cost: 1 }
    const refused = (option: string) =>
      expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION', option })
    await expect(consumeAll(store, [{ ...item, cost: -1 }])).rejects.toThrow(
      refused('consumeAll.items.0.cost'),
    )
    await expect(consumeAll(store, [item, { ...item, key: '' }])).rejects.toThrow(
      refused('consumeAll.items.1.key'),
    )
    await expect(consumeAll(store, [{ ...item, algorithm: {} as never }])).rejects.toThrow(
      refused('consumeAll.items.0.algorithm'),
    )
    await expect(consumeAll(store, item as never)).rejects.toThrow(refused('consumeAll.items'))
    await expect(consumeAll({} as never, [item])).rejects.toThrow(refused('consumeAll.store'))
    await expect(consumeAll(store, [item], Number.NaN)).rejects.toThrow(refused('consumeAll.now'))
    // Nothing reached the store, and a good call goes through.
    expect((await consumeAll(store, [item]))[0]!.remaining).toBe(9)
  })

  it('step checks its algorithm, state, time and cost', () => {
    const refused = (option: string) =>
      expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION', option })
    expect(() => step(algorithm, undefined, Number.NaN)).toThrow(refused('step.now'))
    expect(() => step(algorithm, undefined, 0, -1)).toThrow(refused('step.cost'))
    expect(() => step(algorithm, 'state' as never, 0)).toThrow(refused('step.state'))
    expect(() => step({ limit: 10 } as never, undefined, 0)).toThrow(refused('step.algorithm'))
    expect(step(algorithm, undefined, 0).decision.remaining).toBe(9)
  })

  it('mostRestrictive refuses what is not an array of decisions', () => {
    expect(() => mostRestrictive({ allowed: true } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION', option: 'mostRestrictive.decisions' }),
    )
    expect(mostRestrictive([])).toBeUndefined()
  })
})
