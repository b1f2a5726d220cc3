import { describe, expect, it } from 'vitest'
import { createLimiter, fixedWindow, MemoryStore, slidingWindowLog, tokenBucket } from '../src/index.js'

describe('MemoryStore', () => {
  it('is bounded: past maxKeys it forgets the key closest to a fresh quota, never an over-limit one first', () => {
    const store = new MemoryStore({ maxKeys: 3 })
    const algorithm = fixedWindow({ limit: 2, window: '1h' })
    store.consume(algorithm, 'attacker', 2, 0) // at its limit
    store.consume(algorithm, 'quiet-1', 1, 60_000)
    store.consume(algorithm, 'quiet-2', 1, 60_000)
    expect(store.consume(algorithm, 'attacker', 1, 60_000).allowed).toBe(false)
    for (let i = 0; i < 50; i++) store.consume(algorithm, `flood-${i}`, 1, 3_599_000)
    expect(store.size).toBe(3)
    // The flood could not push the over-limit client out: its state expires no later than the others'.
    expect(store.peek(algorithm, 'attacker', 1, 3_599_000).allowed).toBe(false)
  })

  it('forgets an expired key before any live one when full', () => {
    const store = new MemoryStore({ maxKeys: 2 })
    const algorithm = fixedWindow({ limit: 1, window: '1s' })
    store.consume(algorithm, 'old', 1, 0)
    store.consume(algorithm, 'live', 1, 5_000)
    store.consume(algorithm, 'new', 1, 5_001)
    expect(store.peek(algorithm, 'live', 1, 5_001).allowed).toBe(false)
    expect(store.peek(algorithm, 'new', 1, 5_001).allowed).toBe(false)
    expect(store.size).toBe(2)
  })

  it('stays within maxKeys under a sustained flood of new keys', () => {
    const store = new MemoryStore({ maxKeys: 100 })
    const algorithm = slidingWindowLog({ limit: 3, window: '1m' })
    for (let i = 0; i < 20_000; i++) {
      expect(store.consume(algorithm, `k${i}`, 1, i).remaining).toBe(2)
      expect(store.size).toBeLessThanOrEqual(100)
    }
  })

  it('sweeps expired keys as decisions are made, with no timer', async () => {
    const store = new MemoryStore()
    const algorithm = fixedWindow({ limit: 10, window: '1s' })
    for (let i = 0; i < 1000; i++) store.consume(algorithm, `key-${i}`, 1, 0)
    expect(store.size).toBe(1000)
    // A second later every one of them is back to a full quota; traffic on one key sweeps the others.
    for (let i = 0; i < 70_000; i++) store.consume(algorithm, 'hot', 1, 1000 + i * 1000)
    expect(store.size).toBe(1)
  })

  it('sweep() drops every expired key at once', () => {
    const store = new MemoryStore()
    const algorithm = tokenBucket({ capacity: 5, refillRate: 1, interval: '1s' })
    for (let i = 0; i < 100; i++) store.consume(algorithm, `key-${i}`, 2, 0)
    store.sweep(1999)
    expect(store.size).toBe(100)
    store.sweep(2000)
    expect(store.size).toBe(0)
  })

  it('stores nothing for a refused request on an unknown key', () => {
    const store = new MemoryStore()
    store.consume(fixedWindow({ limit: 2, window: '1s' }), 'k', 3, 0)
    expect(store.size).toBe(0)
  })

  it('a refund that empties a key forgets it', () => {
    const store = new MemoryStore()
    const algorithm = fixedWindow({ limit: 2, window: '1s' })
    store.consume(algorithm, 'k', 1, 0)
    store.refund(algorithm, 'k', 1, 0)
    expect(store.size).toBe(0)
  })

  it('keeps algorithms apart even for the same key', () => {
    const store = new MemoryStore()
    const strict = fixedWindow({ limit: 1, window: '1s' })
    const loose = fixedWindow({ limit: 5, window: '1s' })
    store.consume(strict, 'k', 1, 0)
    expect(store.consume(strict, 'k', 1, 0).allowed).toBe(false)
    expect(store.consume(loose, 'k', 1, 0).allowed).toBe(true)
  })

  it('shares state between equal algorithms, as the RedisStore does', () => {
    const store = new MemoryStore()
    store.consume(fixedWindow({ limit: 1, window: '1s' }), 'k', 1, 0)
    expect(store.consume(fixedWindow({ limit: 1, window: 1000 }), 'k', 1, 0).allowed).toBe(false)
  })

  it('grows past its first slab and keeps every key', () => {
    const store = new MemoryStore()
    const algorithm = slidingWindowLog({ limit: 3, window: '1m' })
    for (let i = 0; i < 5000; i++) store.consume(algorithm, `k${i}`, 1, 0)
    for (let i = 0; i < 5000; i += 499) expect(store.peek(algorithm, `k${i}`, 1, 0).remaining).toBe(2)
    expect(store.size).toBe(5000)
  })

  it('decides same-tick calls exactly: 2,000 concurrent calls at a limit of 1,000 admit 1,000', async () => {
    const limiter = createLimiter({ algorithm: fixedWindow({ limit: 1000, window: '1m' }) })
    const decisions = await Promise.all(Array.from({ length: 2000 }, () => limiter.consume('hot')))
    expect(decisions.filter((d) => d.allowed)).toHaveLength(1000)
  })

  it('uses its own clock when the limiter has none', async () => {
    let now = 0
    const store = new MemoryStore({ clock: () => now })
    const limiter = createLimiter({ algorithm: fixedWindow({ limit: 1, window: '1s' }), store })
    expect((await limiter.consume('k')).allowed).toBe(true)
    expect((await limiter.consume('k')).allowed).toBe(false)
    now = 1000
    expect((await limiter.consume('k')).allowed).toBe(true)
  })

  it('close() forgets everything', () => {
    const store = new MemoryStore()
    store.consume(fixedWindow({ limit: 1, window: '1s' }), 'k', 1, 0)
    store.close()
    expect(store.size).toBe(0)
  })
})
