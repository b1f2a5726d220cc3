import { describe, expect, it } from 'vitest'
import type { SuiteContext } from '../harness.js'

/** The scenarios of `routes`, for one adapter on one store. */
export function routes({ app, get, statuses }: SuiteContext): void {
  describe('per-route limits and endpoints', () => {
    it('each route has its own limit', async () => {
      const a = await app({
        routes: [
          { path: '/a', rateLimit: { limit: 2, window: '1m' } },
          { path: '/b', rateLimit: { limit: 3, window: '1m' } },
          { path: '/free' },
        ],
      })
      expect(await statuses(a, 3, '/a')).toEqual([200, 200, 429])
      expect(await statuses(a, 4, '/b')).toEqual([200, 200, 200, 429])
      const free = await get(a, '/free')
      expect(free.status).toBe(200)
      expect(free.headers['ratelimit-limit']).toBeUndefined()
    })

    it('a request a route limit refuses spends nothing of the app-wide limit', async () => {
      const a = await app({
        options: { limit: 5, window: '1m' },
        routes: [{ path: '/x', rateLimit: { name: 'route', limit: 1, window: '1m' } }, { path: '/' }],
      })
      expect(await statuses(a, 3, '/x')).toEqual([200, 429, 429])
      // Express and Koa ran the app-wide limiter before the route's: the two refused requests were given
      // back (5 - 1 - 1 = 3 left); Fastify's route config replaces the app-wide policy (4 left).
      const res = await get(a, '/')
      expect(res.status).toBe(200)
      expect(Number(res.headers['ratelimit-remaining'])).toBeGreaterThanOrEqual(3)
    })

    it("'endpoint' is the method and route pattern: ids share one bucket", async () => {
      const a = await app({
        routes: [
          { path: '/users/:id', rateLimit: { key: 'endpoint', name: 'endpoint', limit: 2, window: '1m' } },
        ],
      })
      expect(await statuses(a, 1, '/users/1')).toEqual([200])
      expect(await statuses(a, 1, '/users/2')).toEqual([200])
      const res = await get(a, '/users/3')
      expect(res.status).toBe(429)
      expect(res.body.policy).toBe('endpoint')
    })
  })
}
