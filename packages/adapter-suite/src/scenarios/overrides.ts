import { fixedWindow, slidingWindowCounter } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { fwd, type SuiteContext } from '../harness.js'

type Req = { headers: Record<string, string | undefined> }

/** The scenarios of `overrides` (per-identifier limits; `middleware.overrides` at runtime), for one adapter on one store. */
export function overrides({ app, get, statuses }: SuiteContext): void {
  describe('overrides', () => {
    const user = (id: string) => ({ 'X-User': id })
    const byUser = { key: 'user', user: (req: Req) => req.headers['x-user'] }

    it('an exact identifier beats a pattern, a longer pattern a shorter one; false is not limited', async () => {
      const a = await app({
        options: {
          ...byUser,
          limit: 1,
          window: '1m',
          overrides: {
            alice: fixedWindow({ limit: 3, window: '1m' }),
            '*@acme.com': fixedWindow({ limit: 2, window: '1m' }),
            '*.com': fixedWindow({ limit: 4, window: '1m' }),
            healthcheck: false,
          },
        },
      })
      expect(await statuses(a, 4, '/', user('alice'))).toEqual([200, 200, 200, 429])
      expect(await statuses(a, 3, '/', user('bob@acme.com'))).toEqual([200, 200, 429])
      expect(await statuses(a, 5, '/', user('carol@example.com'))).toEqual([200, 200, 200, 200, 429])
      expect(await statuses(a, 2, '/', user('dave'))).toEqual([200, 429])
      for (let i = 0; i < 5; i++) {
        const res = await get(a, '/', user('healthcheck'))
        expect(res.status).toBe(200)
        expect(res.headers['ratelimit-limit']).toBeUndefined()
      }
      const alice = await get(a, '/', user('alice'))
      expect(alice.headers['ratelimit-limit']).toBe('3')
      expect(alice.headers['ratelimit-policy']).toBe('3;w=60')
    })

    it('an ip policy matches the normalised client address', async () => {
      const a = await app({
        trustProxy: true,
        options: {
          limit: 1,
          window: '1m',
          overrides: { '203.0.113.*': fixedWindow({ limit: 3, window: '1m' }), '198.51.100.7': false },
        },
      })
      expect(await statuses(a, 4, '/', fwd('::ffff:203.0.113.9'))).toEqual([200, 200, 200, 429])
      expect(await statuses(a, 3, '/', fwd('198.51.100.7'))).toEqual([200, 200, 200])
      expect(await statuses(a, 2, '/', fwd('198.51.100.8'))).toEqual([200, 429])
    })

    it('the middleware changes overrides at runtime: set, list, delete; an override counts on its own', async () => {
      const a = await app({ options: { ...byUser, limit: 1, window: '1m', overrides: {} } })
      const overrides = a.overrides!
      expect(await statuses(a, 2, '/', user('erin'))).toEqual([200, 429])
      await overrides.set('user', 'erin', slidingWindowCounter({ limit: 3, window: '1m' }))
      // A key scope of its own: erin's count under the policy is not carried over.
      expect(await statuses(a, 4, '/', user('erin'))).toEqual([200, 200, 200, 429])
      await overrides.set('user', '*@partner.example', false)
      expect(await statuses(a, 3, '/', user('x@partner.example'))).toEqual([200, 200, 200])
      expect((await overrides.list()).map((o) => [o.policy, o.pattern, o.source])).toEqual([
        ['user', 'erin', 'runtime'],
        ['user', '*@partner.example', 'runtime'],
      ])
      await overrides.delete('user', 'erin')
      await overrides.delete('user', '*@partner.example')
      expect(await statuses(a, 1, '/', user('erin'))).toEqual([429]) // its count under the policy is still there
      expect(await statuses(a, 2, '/', user('y@partner.example'))).toEqual([200, 429])
      expect(await overrides.list()).toEqual([])
    })
  })
}
