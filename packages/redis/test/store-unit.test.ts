import { fixedWindow } from '@floodgate/core'
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
  it('an unreadable reply takes the fail mode, is reported, and does not open the circuit', async () => {
    const { client, calls } = fake(() => Promise.resolve('not a decision'))
    const errors: Error[] = []
    const store = new RedisStore({
      client: client as never,
      failMode: 'closed',
      onError: (e) => errors.push(e),
    })
    expect((await store.consume(algorithm, 'k', 1)).source).toBe('fail-closed')
    expect((await store.consume(algorithm, 'k', 1)).source).toBe('fail-closed')
    expect(calls.evalsha).toBe(2)
    expect(errors).toHaveLength(2)
    expect(store.degraded).toBe(false)
  })

  it('a client that throws synchronously, and an onError that throws, still give a decision', async () => {
    const { client } = fake(() => {
      throw new Error('boom')
    })
    const store = new RedisStore({
      client: client as never,
      failMode: 'open',
      onError: () => {
        throw new Error('bad hook')
      },
    })
    expect(await store.consume(algorithm, 'k', 1)).toMatchObject({ allowed: true, source: 'fail-open' })
    // A connection-like error opens the circuit: the next decision fails fast without calling the client.
    expect(store.degraded).toBe(true)
  })

  it('text replies parse exactly (a client without binary replies)', async () => {
    const { client } = fake(() => Promise.resolve('0 3 1234.5678 0.25 -0'))
    const store = new RedisStore({ client: client as never })
    const decision = await store.consume(algorithm, 'k', 1)
    expect(decision).toMatchObject({ allowed: false, remaining: 3, resetMs: 1234.5678, retryAfterMs: 0.25 })
    expect(Object.is(decision.delayMs, -0)).toBe(true)
  })
})
