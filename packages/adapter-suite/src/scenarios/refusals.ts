import { fixedWindow, type Outcome } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import type { SuiteContext } from '../harness.js'

/** The scenarios of `refusals`, for one adapter on one store. */
export function refusals({ app, get, statuses, clock }: SuiteContext): void {
  describe('refusals', () => {
    it('429 with Retry-After, Cache-Control: no-store and the JSON body', async () => {
      const a = await app({ options: { algorithm: fixedWindow({ limit: 2, window: '1m' }) } })
      clock.advance(30_000)
      await statuses(a, 2)
      const res = await get(a)
      expect(res.status).toBe(429)
      expect(res.headers['retry-after']).toBe('30')
      expect(res.headers['cache-control']).toBe('no-store')
      expect(res.headers['content-type']).toMatch(/^application\/json/)
      expect(res.body).toEqual({
        error: 'rate_limited',
        message: 'Too many requests, retry in 30 seconds.',
        retryAfter: 30,
        policy: 'ip',
      })
      expect(res.headers['ratelimit-remaining']).toBe('0')
    })

    it('Retry-After is at least 1 second', async () => {
      const a = await app({ options: { algorithm: fixedWindow({ limit: 1, window: '1s' }) } })
      clock.advance(999)
      await get(a)
      const res = await get(a)
      expect(res.headers['retry-after']).toBe('1')
      expect(res.body.message).toBe('Too many requests, retry in 1 second.')
    })

    it('RFC 9457 problem+json on request', async () => {
      const a = await app({ options: { limit: 1, window: '1m', format: 'problem+json' } })
      await get(a)
      const res = await get(a)
      expect(res.status).toBe(429)
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
      expect(res.body).toMatchObject({
        type: 'about:blank',
        title: 'Too Many Requests',
        status: 429,
        policy: 'ip',
      })
      expect(res.body.detail).toMatch(/^Too many requests, retry in \d+ seconds?\.$/)
    })

    it('a custom message, and a custom handler', async () => {
      const msg = await app({ options: { limit: 1, window: '1m', message: 'Slow down.' } })
      await get(msg)
      expect((await get(msg)).body.message).toBe('Slow down.')

      const custom = await app({
        options: {
          limit: 1,
          window: '1m',
          handler: (_req: unknown, outcome: Outcome) => ({
            status: 503,
            body: { custom: true, policy: outcome.decision?.policy },
          }),
        },
      })
      await get(custom)
      const res = await get(custom)
      expect(res.status).toBe(503)
      expect(res.body).toEqual({ custom: true, policy: 'ip' })
      expect(res.headers['retry-after']).toBe('120') // sliding window counter: the count decays over the next window
    })
  })
}
