import { describe, expect, it, vi } from 'vitest'
import type { SuiteContext } from '../harness.js'
import type { AdapterRoute } from '../types.js'

/** The scenarios of `refunds`, for one adapter on one store. */
export function refunds({ app, get, statuses, store }: SuiteContext): void {
  describe('refunds when the response finishes', () => {
    const routes: AdapterRoute[] = [
      { path: '/ok' },
      { path: '/fail', status: 500 },
      { path: '/missing', status: 404 },
    ]

    it('skipFailedRequests: responses >= 400 give back what they spent', async () => {
      const a = await app({ routes, options: { limit: 2, window: '1m', skipFailedRequests: true } })
      for (let i = 0; i < 4; i++) {
        expect((await get(a, i % 2 ? '/fail' : '/missing')).status).toBeGreaterThanOrEqual(400)
        await vi.waitFor(() => expect(store().refunds).toBe(i + 1))
      }
      expect(await statuses(a, 3, '/ok')).toEqual([200, 200, 429])
      expect(store().refunds).toBe(4)
    })

    it('skipSuccessfulRequests: responses < 400 give back what they spent', async () => {
      const a = await app({ routes, options: { limit: 2, window: '1m', skipSuccessfulRequests: true } })
      for (let i = 0; i < 3; i++) {
        expect((await get(a, '/ok')).status).toBe(200)
        await vi.waitFor(() => expect(store().refunds).toBe(i + 1))
      }
      expect(await statuses(a, 3, '/fail')).toEqual([500, 500, 429])
      expect(store().refunds).toBe(3)
    })
  })
}
