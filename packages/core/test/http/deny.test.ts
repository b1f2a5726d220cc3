import { describe, expect, it } from 'vitest'
import {
  type Algorithm,
  MemoryStore,
  type Outcome,
  RateLimitConfigError,
  type RequestInfo,
} from '../../src/index.js'
import { createRateLimitHandler, type RateLimitHandler } from '../../src/internal.js'
import { requestFrom } from '../request-info.js'

/** A MemoryStore that counts the calls it gets. */
class CountingStore extends MemoryStore {
  calls = 0
  override consume(algorithm: Algorithm, key: string, cost: number, now?: number) {
    this.calls++
    return super.consume(algorithm, key, cost, now)
  }
  override peek(algorithm: Algorithm, key: string, cost: number, now?: number) {
    this.calls++
    return super.peek(algorithm, key, cost, now)
  }
}

const decide = async (handler: RateLimitHandler<any>, info: RequestInfo<any>) =>
  (await handler.handle(info)) as Outcome

describe('deny lists', () => {
  it('a denied request is answered before any store call, in the same tick for a deny list', async () => {
    const store = new CountingStore()
    const handler = createRateLimitHandler({ store, denyList: ['203.0.113.0/24'] })
    const outcome = handler.handle(requestFrom('::ffff:203.0.113.9'))
    expect(outcome).not.toBeInstanceOf(Promise)
    expect(outcome).toMatchObject({ kind: 'answer', status: 403, denied: true, limited: false })
    expect(store.calls).toBe(0)
    expect((await decide(handler, requestFrom('198.51.100.1'))).kind).toBe('pass')
    expect(store.calls).toBe(1)
  })

  it('deny(req) is called once per request, with the request, before any store call', async () => {
    const store = new CountingStore()
    const seen: unknown[] = []
    const handler = createRateLimitHandler({
      store,
      deny: async (req: { id: number }) => {
        seen.push(req.id)
        return req.id === 1
      },
    })
    const native = (id: number) => ({ ...requestFrom('198.51.100.1'), native: { id } })
    expect((await decide(handler, native(1))).status).toBe(403)
    expect(store.calls).toBe(0)
    expect((await decide(handler, native(2))).kind).toBe('pass')
    expect(seen).toEqual([1, 2])
    expect(store.calls).toBe(1)
  })

  it('a deny list needs no policy keyed by address: a global limit still reads the address for it', async () => {
    const handler = createRateLimitHandler({ key: 'global', denyList: ['10.0.0.0/8'] })
    expect((await decide(handler, requestFrom('10.1.2.3'))).status).toBe(403)
    expect((await decide(handler, requestFrom('11.1.2.3'))).kind).toBe('pass')
  })

  it('invalid entries fail at creation, naming the option and what is allowed', () => {
    expect(() => createRateLimitHandler({ denyList: ['10.0.0/8'] })).toThrow(RateLimitConfigError)
    expect(() => createRateLimitHandler({ denyList: ['10.0.0/8'] })).toThrow(/denyList/)
    expect(() => createRateLimitHandler({ deny: true as never })).toThrow(/deny.*function/)
  })
})
