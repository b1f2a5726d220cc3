import type { Outcome } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { fwd, type SuiteContext } from '../harness.js'

/** The scenarios of `request-options`, for one adapter on one store. */
export function requestOptions({ app, get, statuses }: SuiteContext): void {
  describe('cost, skip, allow list, dry run', () => {
    it('cost: a number, or a function of the request', async () => {
      const a = await app({ options: { limit: 5, window: '1m', cost: 2 } })
      const first = await get(a)
      expect(first.headers['ratelimit-remaining']).toBe('3')
      expect((await get(a)).headers['ratelimit-remaining']).toBe('1')
      expect((await get(a)).status).toBe(429)

      const b = await app({
        options: {
          limit: 5,
          window: '1m',
          cost: (req: { headers: Record<string, string | undefined> }) => Number(req.headers['x-cost'] ?? 1),
        },
      })
      expect((await get(b, '/', { 'X-Cost': '4' })).headers['ratelimit-remaining']).toBe('1')
      expect((await get(b, '/', { 'X-Cost': '2' })).status).toBe(429)
      expect((await get(b)).status).toBe(200)
    })

    it('skip: not counted, no headers', async () => {
      const a = await app({
        options: {
          limit: 1,
          window: '1m',
          skip: (req: { headers: Record<string, string | undefined> }) => req.headers['x-skip'] === '1',
        },
      })
      const skipped = await statuses(a, 3, '/', { 'X-Skip': '1' })
      expect(skipped).toEqual([200, 200, 200])
      expect((await get(a, '/', { 'X-Skip': '1' })).headers['ratelimit-limit']).toBeUndefined()
      expect(await statuses(a, 2)).toEqual([200, 429])
    })

    it('allow list: IPs and CIDRs, IPv4 and IPv6', async () => {
      const a = await app({
        trustProxy: true,
        options: { limit: 1, window: '1m', allowList: ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7'] },
      })
      expect(await statuses(a, 3, '/', fwd('10.1.2.3'))).toEqual([200, 200, 200])
      expect(await statuses(a, 3, '/', fwd('::ffff:10.9.9.9'))).toEqual([200, 200, 200])
      expect(await statuses(a, 3, '/', fwd('2001:db8:5::1'))).toEqual([200, 200, 200])
      expect(await statuses(a, 3, '/', fwd('192.0.2.7'))).toEqual([200, 200, 200])
      expect(await statuses(a, 2, '/', fwd('192.0.2.8'))).toEqual([200, 429])
      expect(await statuses(a, 2, '/', fwd('2001:db9::1'))).toEqual([200, 429])
    })

    it('dry run: headers and onLimited, never a refusal', async () => {
      const limited: Outcome[] = []
      const a = await app({
        options: {
          limit: 1,
          window: '1m',
          dryRun: true,
          onLimited: (_req: unknown, o: Outcome) => limited.push(o),
        },
      })
      expect(await statuses(a, 3)).toEqual([200, 200, 200])
      expect(limited).toHaveLength(2)
      expect(limited[0]!.limited).toBe(true)
      const res = await get(a)
      expect(res.headers['ratelimit-remaining']).toBe('0')
      expect(res.headers['retry-after']).toBeUndefined()
    })
  })
}
