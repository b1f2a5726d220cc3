import { describe, expect, it } from 'vitest'
import { fwd, type SuiteContext } from '../harness.js'

type Req = { headers: Record<string, string | undefined> }

/** The scenarios of `denials` (`denyList`, `deny`), for one adapter on one store. */
export function denials({ app, get, statuses }: SuiteContext): void {
  describe('deny lists', () => {
    it('denyList: 403 { error: "denied" }, no Retry-After and no rate-limit headers; IPv4-mapped IPv6 as IPv4', async () => {
      const a = await app({
        trustProxy: true,
        options: {
          limit: 2,
          window: '1m',
          denyList: ['203.0.113.0/24', '2001:db8:bad::/48', '198.51.100.9'],
        },
      })
      for (const ip of [
        '203.0.113.7',
        '::ffff:203.0.113.8',
        '::ffff:cb00:7109',
        '2001:db8:bad:1::5',
        '198.51.100.9',
      ]) {
        const res = await get(a, '/', fwd(ip))
        expect(res.status).toBe(403)
        expect(res.body).toEqual({ error: 'denied', message: 'This client is not allowed.' })
        expect(res.headers['content-type']).toMatch(/^application\/json/)
        expect(res.headers['retry-after']).toBeUndefined()
        expect(res.headers['ratelimit-limit']).toBeUndefined()
        expect(res.headers['cache-control']).toBe('no-store')
      }
      // Near misses are limited as usual.
      expect(await statuses(a, 3, '/', fwd('203.0.114.1'))).toEqual([200, 200, 429])
      expect(await statuses(a, 3, '/', fwd('2001:db8:bae::1'))).toEqual([200, 200, 429])
      expect(await statuses(a, 3, '/', fwd('198.51.100.10'))).toEqual([200, 200, 429])
    })

    it('a denied request spends nothing: once no longer denied, the client has its whole quota', async () => {
      let denying = true
      const a = await app({ options: { limit: 2, window: '1m', deny: () => denying } })
      expect(await statuses(a, 5)).toEqual([403, 403, 403, 403, 403])
      denying = false
      expect(await statuses(a, 3)).toEqual([200, 200, 429])
    })

    it('deny(req), async: true denies, anything else does not', async () => {
      const a = await app({
        options: {
          limit: 5,
          window: '1m',
          deny: async (req: Req) => req.headers['x-account'] === 'banned',
        },
      })
      expect((await get(a, '/', { 'X-Account': 'banned' })).status).toBe(403)
      expect((await get(a, '/', { 'X-Account': 'ok' })).status).toBe(200)
      expect((await get(a)).status).toBe(200)
    })

    it('a deny that throws or rejects denies nothing: the request is limited as usual, and reported', async () => {
      const errors: { code?: string; option?: string }[] = []
      const a = await app({
        options: {
          limit: 1,
          window: '1m',
          deny: (req: Req) => {
            if (req.headers['x-mode'] === 'reject') return Promise.reject(new Error('lookup down'))
            throw new Error('lookup broke')
          },
          onError: (error: unknown) => errors.push(error as { code?: string }),
        },
      })
      expect((await get(a, '/', { 'X-Mode': 'throw' })).status).toBe(200)
      expect((await get(a, '/', { 'X-Mode': 'reject' })).status).toBe(429)
      expect(errors.map((e) => [e.code, e.option])).toEqual([
        ['ERR_FLOODGATE_FUNCTION_FAILED', 'deny'],
        ['ERR_FLOODGATE_FUNCTION_FAILED', 'deny'],
      ])
    })

    it('a denial comes first: allowList and skip do not undo it', async () => {
      const a = await app({
        trustProxy: true,
        options: {
          limit: 1,
          window: '1m',
          allowList: ['10.0.0.0/8'],
          denyList: ['10.6.6.0/24'],
          skip: () => true,
        },
      })
      expect((await get(a, '/', fwd('10.6.6.6'))).status).toBe(403)
      expect(await statuses(a, 3, '/', fwd('10.1.1.1'))).toEqual([200, 200, 200])
    })

    it('problem+json: the denial as problem details', async () => {
      const a = await app({ options: { limit: 1, window: '1m', format: 'problem+json', deny: () => true } })
      const res = await get(a)
      expect(res.status).toBe(403)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(res.body).toEqual({
        type: 'about:blank',
        title: 'Forbidden',
        status: 403,
        detail: 'This client is not allowed.',
      })
    })

    it('dry run: a denied request goes on', async () => {
      const a = await app({
        options: { limit: 5, window: '1m', dryRun: true, denyList: ['0.0.0.0/0', '::/0'] },
      })
      expect(await statuses(a, 2)).toEqual([200, 200])
    })
  })
}
