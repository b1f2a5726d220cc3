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

    it("failMode 'closed' answers 503", async () => {
      const { app: a, errors } = await down('reject', { failMode: 'closed' })
      const res = await get(a)
      expect(res.status).toBe(503)
      expect(res.body.error).toBe('rate_limiter_unavailable')
      expect(errors).toHaveLength(1)
    })

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
