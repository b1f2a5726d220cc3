import { fixedWindow } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { START, type SuiteContext } from '../harness.js'

/** The scenarios of `headers`, for one adapter on one store. */
export function headers({ app, get, statuses, clock }: SuiteContext): void {
  describe('headers', () => {
    const limit = (headers: unknown, extra: Record<string, unknown> = {}) => ({
      algorithm: fixedWindow({ limit: 5, window: '10s' }),
      headers,
      ...extra,
    })

    it('draft-6 by default: RateLimit-Limit, -Remaining, -Reset (delta seconds, rounded up), -Policy', async () => {
      const a = await app({ options: limit(undefined) })
      clock.advance(2_500)
      const res = await get(a)
      expect(res.status).toBe(200)
      expect(res.headers['ratelimit-limit']).toBe('5')
      expect(res.headers['ratelimit-remaining']).toBe('4')
      expect(res.headers['ratelimit-reset']).toBe('8') // 7.5 s rounds up
      expect(res.headers['ratelimit-policy']).toBe('5;w=10')
      expect(res.headers.ratelimit).toBeUndefined()
      expect(res.headers['x-ratelimit-limit']).toBeUndefined()
    })

    it('draft-7: one RateLimit field and RateLimit-Policy', async () => {
      const a = await app({ options: limit('draft-7') })
      clock.advance(3_000)
      await get(a)
      const res = await get(a)
      expect(res.headers.ratelimit).toBe('limit=5, remaining=3, reset=7')
      expect(res.headers['ratelimit-policy']).toBe('5;w=10')
      expect(res.headers['ratelimit-limit']).toBeUndefined()
    })

    it('draft-8: Structured Fields, one item per policy', async () => {
      const a = await app({
        options: {
          headers: 'draft-8',
          user: (req: { headers: Record<string, string> }) => req.headers['x-user'],
          limits: [
            { name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 100, window: '1m' }) },
            { name: 'user', key: 'user', algorithm: fixedWindow({ limit: 1000, window: '1h' }) },
          ],
        },
      })
      clock.advance(30_000)
      await get(a, '/', { 'X-User': 'alice' })
      const res = await get(a, '/', { 'X-User': 'alice' })
      expect(res.headers['ratelimit-policy']).toBe('"ip";q=100;w=60, "user";q=1000;w=3600')
      expect(res.headers.ratelimit).toBe('"ip";r=98;t=30, "user";r=998;t=3570')
    })

    it('legacy: X-RateLimit-* with Reset in epoch seconds', async () => {
      const a = await app({ options: limit('legacy') })
      clock.advance(1_200)
      const res = await get(a)
      expect(res.headers['x-ratelimit-limit']).toBe('5')
      expect(res.headers['x-ratelimit-remaining']).toBe('4')
      expect(res.headers['x-ratelimit-reset']).toBe(String((START + 10_000) / 1000))
      expect(res.headers['ratelimit-limit']).toBeUndefined()
    })

    it('an array combines modes; false sends none, but a 429 still has Retry-After', async () => {
      const both = await app({ options: limit(['draft-7', 'legacy']) })
      const res = await get(both)
      expect(res.headers.ratelimit).toBe('limit=5, remaining=4, reset=10')
      expect(res.headers['x-ratelimit-remaining']).toBe('4')

      const none = await app({
        options: limit(false, { algorithm: fixedWindow({ limit: 1, window: '10s' }) }),
      })
      const ok = await get(none)
      expect(ok.headers['ratelimit-limit']).toBeUndefined()
      expect(ok.headers.ratelimit).toBeUndefined()
      const refused = await get(none)
      expect(refused.status).toBe(429)
      expect(refused.headers['retry-after']).toBe('10')
      expect(refused.headers['ratelimit-limit']).toBeUndefined()
    })

    it('remaining never goes below 0 and the limit is exact (no limit + 1)', async () => {
      const a = await app({ options: limit('draft-6') })
      const codes = await statuses(a, 7)
      expect(codes).toEqual([200, 200, 200, 200, 200, 429, 429])
      const res = await get(a)
      expect(res.headers['ratelimit-remaining']).toBe('0')
    })
  })
}
