import { fixedWindow } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { fwd, type SuiteContext } from '../harness.js'

/** The scenarios of `layered-limits`, for one adapter on one store. */
export function layeredLimits({ app, get, statuses }: SuiteContext): void {
  describe('layered limits', () => {
    const layered = (extra: Record<string, unknown> = {}) => ({
      user: (req: { headers: Record<string, string | undefined> }) => req.headers['x-user'],
      limits: [
        { name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 3, window: '1m' }) },
        { name: 'user', key: 'user', algorithm: fixedWindow({ limit: 2, window: '1m' }) },
      ],
      ...extra,
    })

    it('all must allow; a refusal spends nothing in any policy', async () => {
      const a = await app({ options: layered() })
      const alice = { 'X-User': 'alice' }
      expect(await statuses(a, 2, '/', alice)).toEqual([200, 200])
      const refused = await get(a, '/', alice)
      expect(refused.status).toBe(429)
      expect(refused.body.policy).toBe('user')
      // The refused request took nothing from 'ip': one more passes for another user.
      const bob = await get(a, '/', { 'X-User': 'bob' })
      expect(bob.status).toBe(200)
      expect(bob.headers['ratelimit-remaining']).toBe('0')
      const third = await get(a, '/', { 'X-User': 'carol' })
      expect(third.status).toBe(429)
      expect(third.body.policy).toBe('ip')
    })

    it('draft-6 reports the policy closest to its limit', async () => {
      const a = await app({ options: layered() })
      const res = await get(a, '/', { 'X-User': 'alice' })
      expect(res.headers['ratelimit-limit']).toBe('2')
      expect(res.headers['ratelimit-remaining']).toBe('1')
      expect(res.headers['ratelimit-policy']).toBe('2;w=60')
    })

    it("a request with no user is keyed by its IP in the 'user' policy, never one shared bucket", async () => {
      const a = await app({
        trustProxy: true,
        options: {
          user: (req: { headers: Record<string, string | undefined> }) => req.headers['x-user'],
          key: 'user',
          limit: 2,
          window: '1m',
        },
      })
      expect(await statuses(a, 3, '/', fwd('198.51.100.1'))).toEqual([200, 200, 429])
      expect(await statuses(a, 2, '/', fwd('198.51.100.2'))).toEqual([200, 200])
      // A user id equal to an address is not that address's bucket.
      expect(await statuses(a, 2, '/', { ...fwd('198.51.100.9'), 'X-User': '198.51.100.1' })).toEqual([
        200, 200,
      ])
    })
  })
}
