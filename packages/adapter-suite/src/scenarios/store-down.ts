import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { brokenStore, type SuiteContext } from '../harness.js'

/** The scenarios of `store-down`, for one adapter on one store. */
export function storeDown({ bareApp, get }: SuiteContext): void {
  describe('a store that is down', () => {
    const down = async (how: 'throw' | 'reject' | 'hang', extra: Record<string, unknown> = {}) => {
      const errors: unknown[] = []
      const built = await bareApp({
        options: {
          limit: 1,
          window: '1m',
          store: brokenStore(how),
          storeTimeout: 25,
          onError: (error: unknown) => errors.push(error),
          ...extra,
        },
      })
      return { app: built, errors }
    }

    it.each(['throw', 'reject', 'hang'] as const)(
      'fails open by default when the store would %s',
      async (how) => {
        const { app: a, errors } = await down(how)
        const res = await get(a)
        expect(res.status).toBe(200)
        expect(res.headers['ratelimit-limit']).toBeUndefined()
        expect(errors).toHaveLength(1)
      },
    )

    it.each(['throw', 'reject', 'hang'] as const)(
      "failMode 'closed' answers 503 with Retry-After: 1 and Cache-Control: no-store when the store would %s",
      async (how) => {
        const { app: a, errors } = await down(how, { failMode: 'closed' })
        const res = await get(a)
        expect(res.status).toBe(503)
        expect(res.body.error).toBe('rate_limiter_unavailable')
        expect(res.headers['retry-after']).toBe('1')
        expect(res.headers['cache-control']).toBe('no-store')
        expect(errors).toHaveLength(1)
      },
    )

    it.each(['throw', 'reject', 'hang'] as const)(
      'failMode { fallback } decides on the fallback store when the store would %s: its headers, its 429',
      async (how) => {
        const { app: a, errors } = await down(how, { failMode: { fallback: new MemoryStore() } })
        const first = await get(a)
        expect([first.status, first.headers['ratelimit-remaining']]).toEqual([200, '0'])
        const second = await get(a)
        expect(second.status).toBe(429)
        expect(second.headers['retry-after']).toBeDefined()
        expect(errors).toHaveLength(2) // each request's store failure, reported
      },
    )

    it('a throwing onError hook does not break the request', async () => {
      const { app: a } = await down('throw', {
        onError: () => {
          throw new Error('hook broke')
        },
      })
      expect((await get(a)).status).toBe(200)
    })
  })
}
