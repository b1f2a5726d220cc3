import { describe, expect, it } from 'vitest'
import { MemoryStore, type Outcome, type Store } from '../../src/index.js'
import { createRateLimitHandler } from '../../src/internal.js'
import { promisedStore } from '../promised-store.js'
import { requestFrom } from '../request-info.js'

const info = (ip = '203.0.113.7') => requestFrom(ip)

describe('an outcome decided in the same tick', () => {
  it('is the outcome itself on the MemoryStore with synchronous functions: a pass, a refusal, a skip', () => {
    const handler = createRateLimitHandler({
      limit: 1,
      window: '1m',
      skip: (r: { admin?: boolean }) => r.admin === true,
    })
    const passed = handler.handle(info())
    const refused = handler.handle(info())
    const skipped = handler.handle({ ...info(), native: { admin: true } })
    expect(passed).not.toBeInstanceOf(Promise)
    expect(refused).not.toBeInstanceOf(Promise)
    expect(skipped).not.toBeInstanceOf(Promise)
    expect([passed, refused, skipped].map((o) => (o as { kind: string }).kind === 'pass')).toEqual([
      true,
      false,
      true,
    ])
    expect((refused as { status: number }).status).toBe(429)
  })

  it('is a promise when the store or a function has to wait, with the same answers', async () => {
    const onStore = createRateLimitHandler({ limit: 1, window: '1m', store: promisedStore() })
    const first = onStore.handle(info())
    expect(first).toBeInstanceOf(Promise)
    expect((await first).kind).toBe('pass')
    expect((await onStore.handle(info())).status).toBe(429)

    const asyncKey = createRateLimitHandler({ limit: 1, window: '1m', key: async () => 'k' })
    const keyed = asyncKey.handle(info())
    expect(keyed).toBeInstanceOf(Promise)
    expect((await keyed).kind).toBe('pass')
    expect((await asyncKey.handle(info('198.51.100.1'))).status).toBe(429)
  })

  it('a store that throws synchronously is still an outcome (failMode), never a throw', () => {
    const broken: Store = {
      ...new MemoryStore(),
      consume: () => {
        throw new Error('down')
      },
      peek: () => {
        throw new Error('down')
      },
      refund: () => undefined,
      reset: () => undefined,
      close: () => undefined,
    }
    const errors: unknown[] = []
    const open = createRateLimitHandler({ store: broken, onError: (e) => void errors.push(e) })
    const closed = createRateLimitHandler({ store: broken, failMode: 'closed', onError: () => undefined })
    const a = open.handle(info())
    const b = closed.handle(info())
    expect(a).not.toBeInstanceOf(Promise)
    expect((a as { kind: string }).kind).toBe('pass')
    expect((b as { status: number }).status).toBe(503)
    expect(errors).toHaveLength(1)
  })

  it('links an earlier limiter outcome in the same tick: a later refusal gives back what the first spent', () => {
    const store = new MemoryStore()
    const app = createRateLimitHandler({ limit: 2, window: '1m', store, prefix: 'app' })
    const route = createRateLimitHandler({ limit: 1, window: '1m', store, prefix: 'route' })
    const first = app.handle(info()) as Outcome
    expect(first.decision?.remaining).toBe(1)
    expect((route.handle(info(), first.rateLimit) as Outcome).kind).toBe('pass')
    const second = app.handle(info()) as Outcome
    expect((route.handle(info(), second.rateLimit) as Outcome).status).toBe(429)
    // The refused request's unit in the app's policy was given back: one left there.
    const third = app.handle(info()) as { kind: string; decision?: { remaining: number } }
    expect(third.kind).toBe('pass')
    expect(third.decision?.remaining).toBe(0)
  })
})
