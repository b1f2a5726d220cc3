import { fixedWindow } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { fwd, type SuiteContext } from '../harness.js'

/** The scenarios of `ban` (and `onBanned`, `unban`), for one adapter on one store. */
export function bans({ app, clock, get, statuses }: SuiteContext): void {
  describe('bans', () => {
    it('after `after` refusals within `within`: 403 { error: "banned" } with Retry-After until `for` has passed', async () => {
      const banned: { policy: string; forMs: number }[] = []
      const a = await app({
        trustProxy: true,
        options: {
          limit: 2,
          window: '1m',
          ban: { after: 2, within: '1m', for: '10m' },
          onBanned: (_req: unknown, ban: { policy: string; forMs: number }) => banned.push(ban),
        },
      })
      const ip = fwd('203.0.113.7')
      expect(await statuses(a, 4, '/', ip)).toEqual([200, 200, 429, 403])
      const res = await get(a, '/', ip)
      expect(res.status).toBe(403)
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      expect(res.headers['retry-after']).toBe('600')
      expect(res.headers['cache-control']).toBe('no-store')
      expect(res.headers['ratelimit-limit']).toBeUndefined()
      expect(res.body).toEqual({
        error: 'banned',
        message: 'Too many refused requests; banned for 600 seconds.',
        retryAfter: 600,
        policy: 'ip',
      })
      expect(banned).toEqual([{ policy: 'ip', forMs: 600_000, outcome: expect.anything() }])
      // Another client is not banned; the banned one stays banned after its window has turned.
      expect(await statuses(a, 1, '/', fwd('203.0.113.8'))).toEqual([200])
      clock.advance(120_000)
      const later = await get(a, '/', ip)
      expect(later.status).toBe(403)
      expect(later.headers['retry-after']).toBe('480')
      clock.advance(480_000)
      expect(await statuses(a, 3, '/', ip)).toEqual([200, 200, 429])
      expect(banned).toHaveLength(1)
    })

    it('unban(address) lifts the ban at once, through the middleware (the instance on Fastify)', async () => {
      const a = await app({
        trustProxy: true,
        options: { limit: 1, window: '1m', ban: { after: 1, within: '1m', for: '1h' } },
      })
      const ip = fwd('198.51.100.20')
      expect(await statuses(a, 3, '/', ip)).toEqual([200, 403, 403])
      expect(a.unban).toBeTypeOf('function')
      await a.unban!('198.51.100.20')
      // The quota is still spent (a refusal, counted from one again), so the next refusal bans again.
      expect(await statuses(a, 2, '/', ip)).toEqual([403, 403])
      clock.advance(120_000)
      await a.unban!('198.51.100.20', { policy: 'ip' })
      expect(await statuses(a, 1, '/', ip)).toEqual([200])
      await expect(a.unban!('not an address')).rejects.toThrow(/unban\.key/)
    })

    it('a ban on one policy of several: 403 for that key, other keys limited as usual', async () => {
      const a = await app({
        options: {
          limits: [
            {
              name: 'per-key',
              key: (req: { headers: Record<string, string | undefined> }) => req.headers['x-key'],
              algorithm: fixedWindow({ limit: 1, window: '1m' }),
              ban: { after: 1, within: '1m', for: '5m' },
            },
            { name: 'everyone', key: 'global', algorithm: fixedWindow({ limit: 100, window: '1m' }) },
          ],
        },
      })
      expect(await statuses(a, 2, '/', { 'X-Key': 'k1' })).toEqual([200, 403])
      const res = await get(a, '/', { 'X-Key': 'k1' })
      expect(res.body).toMatchObject({ error: 'banned', policy: 'per-key', retryAfter: 300 })
      expect(await statuses(a, 1, '/', { 'X-Key': 'k2' })).toEqual([200])
      await a.unban!('k1', { policy: 'per-key' })
      expect(await statuses(a, 1, '/', { 'X-Key': 'k1' })).toEqual([403])
    })

    it('problem+json: the ban as problem details', async () => {
      const a = await app({
        options: {
          limit: 1,
          window: '1m',
          format: 'problem+json',
          ban: { after: 1, within: '1m', for: '30s' },
        },
      })
      await get(a)
      const res = await get(a)
      expect(res.status).toBe(403)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(res.body).toMatchObject({ title: 'Forbidden', status: 403, retryAfter: 30, policy: 'ip' })
    })

    it('dry run: a banned client goes on', async () => {
      const a = await app({
        options: { limit: 1, window: '1m', dryRun: true, ban: { after: 1, within: '1m', for: '1h' } },
      })
      expect(await statuses(a, 3)).toEqual([200, 200, 200])
    })
  })
}
