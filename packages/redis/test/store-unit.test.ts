import { createLimiter, fixedWindow } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { RedisStore } from '../src/index.js'

// The store against fake clients: the paths a real Redis rarely takes.
const algorithm = fixedWindow({ limit: 5, window: '1m' })

function fake(evalsha: (...args: unknown[]) => Promise<unknown>) {
  const calls = { evalsha: 0 }
  const client = {
    evalsha: (...args: unknown[]) => {
      calls.evalsha++
      return evalsha(...args)
    },
    eval: () => Promise.reject(new Error('not expected')),
    del: () => Promise.resolve(1),
    status: 'ready',
  }
  return { client, calls }
}

describe('RedisStore, unusual replies', () => {
  it('an unreadable reply rejects (ERR_FLOODGATE_REDIS_FAILED), is reported, and does not open the circuit; a closed limiter refuses', async () => {
    const { client, calls } = fake(() => Promise.resolve('not a decision'))
    const errors: Error[] = []
    const store = new RedisStore({
      client: client as never,
      onError: (e) => errors.push(e),
    })
    await expect(store.consume(algorithm, 'k', 1)).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_REDIS_FAILED',
    })
    const limiter = createLimiter({ store, algorithm, failMode: 'closed' })
    expect(await limiter.consume('k')).toMatchObject({
      allowed: false,
      source: 'fail-closed',
      retryAfterMs: 1000,
    })
    expect(calls.evalsha).toBe(2)
    expect(errors).toHaveLength(2)
    expect(store.degraded).toBe(false)
  })

  it('a client that throws synchronously, and an onError that throws, still give a decision', async () => {
    const { client, calls } = fake(() => {
      throw new Error('boom')
    })
    const store = new RedisStore({
      client: client as never,
      onError: () => {
        throw new Error('bad hook')
      },
    })
    const limiter = createLimiter({ store, algorithm, failMode: 'open' })
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, source: 'fail-open' })
    // A connection-like error opens the circuit: the next call fails fast without calling the client.
    expect(store.degraded).toBe(true)
    await expect(store.consume(algorithm, 'k', 1)).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_REDIS_UNAVAILABLE',
    })
    expect(calls.evalsha).toBe(1)
  })

  it('text replies parse exactly (a client without binary replies)', async () => {
    const { client } = fake(() => Promise.resolve('0 3 1234.5678 0.25 -0'))
    const store = new RedisStore({ client: client as never })
    const decision = await store.consume(algorithm, 'k', 1)
    expect(decision).toMatchObject({ allowed: false, remaining: 3, resetMs: 1234.5678, retryAfterMs: 0.25 })
    expect(Object.is(decision.delayMs, -0)).toBe(true)
  })
})
