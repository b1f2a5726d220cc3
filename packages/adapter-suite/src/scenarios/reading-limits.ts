import { fixedWindow, gcra, MemoryStore, slidingWindowCounter, tokenBucket } from '@floodgate/core'
import { peekLimit } from '@floodgate/testing'
import { describe, expect, it } from 'vitest'
import { fwd, type SuiteContext } from '../harness.js'

type Req = { headers: Record<string, string | undefined> }

let reads = 0
/** A prefix of the test's own: the apps of one describe block share a store. */
const ownPrefix = () => `reading-${process.pid}-${reads++}`

/** The scenarios of `reading-limits`: what an app's tests read with `peekLimit` is what the middleware counts. */
export function readingLimits({ app, get, store, clock }: SuiteContext): void {
  describe('reading a limit with peekLimit (@floodgate/testing)', () => {
    it('reads each policy by the key the middleware gives it: the address, the user, a key function, global', async () => {
      const prefix = ownPrefix()
      const algorithms = {
        ip: fixedWindow({ limit: 10, window: '1m' }),
        user: slidingWindowCounter({ limit: 8, window: '1m' }),
        tenant: tokenBucket({ capacity: 6, refillRate: 1, interval: '1h' }),
        everyone: gcra({ rate: 20, period: '1h', burst: 20 }),
      }
      const a = await app({
        trustProxy: true,
        options: {
          prefix,
          user: (req: Req) => req.headers['x-user'],
          limits: [
            { name: 'ip', key: 'ip', algorithm: algorithms.ip },
            { name: 'user', key: 'user', algorithm: algorithms.user },
            { name: 'tenant', key: (req: Req) => req.headers['x-tenant'], algorithm: algorithms.tenant },
            { name: 'everyone', key: 'global', algorithm: algorithms.everyone },
          ],
        },
      })
      const headers = { ...fwd('203.0.113.7'), 'x-user': 'alice', 'x-tenant': 'acme' }
      for (let i = 0; i < 3; i++) expect((await get(a, '/', headers)).status).toBe(200)
      expect((await get(a, '/', { ...fwd('203.0.113.8'), 'x-user': 'bob' })).status).toBe(200)
      const read = (policy: keyof typeof algorithms, client: Parameters<typeof peekLimit>[0]['client']) =>
        peekLimit({ store: store(), algorithm: algorithms[policy], policy, prefix, client, now: clock.now() })

      expect((await read('ip', { ip: '203.0.113.7' })).remaining).toBe(7)
      expect((await read('ip', { ip: '::ffff:203.0.113.8' })).remaining).toBe(9)
      expect((await read('user', { user: 'alice' })).remaining).toBe(5)
      expect((await read('user', { user: 'bob' })).remaining).toBe(7)
      expect((await read('tenant', { key: 'acme' })).remaining).toBe(3)
      expect((await read('everyone', 'global')).remaining).toBe(16)
      expect((await read('user', { user: 'carol' })).remaining).toBe(8)
    })

    it('reads an IPv6 client by its /64, as the middleware keys it (or by the ipv6Subnet it was given)', async () => {
      const prefix = ownPrefix()
      const algorithm = slidingWindowCounter({ limit: 5, window: '1m' })
      const a = await app({ trustProxy: true, options: { prefix, limit: 5, window: '1m' } })
      expect((await get(a, '/', fwd('2001:db8:1:2::1'))).status).toBe(200)
      expect((await get(a, '/', fwd('2001:db8:1:2::2'))).status).toBe(200)
      const read = (ip: string, ipv6Subnet?: number | false) =>
        peekLimit({ store: store(), algorithm, prefix, client: { ip }, ipv6Subnet, now: clock.now() })
      expect((await read('2001:db8:1:2:ffff::9')).remaining).toBe(3)
      expect((await read('2001:db8:1:3::1')).remaining).toBe(5)
      expect((await read('2001:db8:1:2::1', 128)).remaining).toBe(5)
    })

    it('refuses what is not an address, or not a key, naming it', async () => {
      const algorithm = slidingWindowCounter({ limit: 5, window: '1m' })
      const read = (client: Parameters<typeof peekLimit>[0]['client']) =>
        peekLimit({ store: new MemoryStore(), algorithm, client })
      await expect(read({ ip: '010.1.1.1' })).rejects.toMatchObject({
        code: 'ERR_FLOODGATE_INVALID_KEY',
        option: 'peekLimit.client.ip',
      })
      await expect(read({ user: '' })).rejects.toMatchObject({
        code: 'ERR_FLOODGATE_INVALID_KEY',
        option: 'peekLimit.client.user',
      })
    })
  })
}
