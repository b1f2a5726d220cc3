import { describe, expect, it } from 'vitest'
import { fwd, type SuiteContext } from '../harness.js'

/** The scenarios of `client-addresses`, for one adapter on one store. */
export function clientAddresses({ app, get, statuses }: SuiteContext): void {
  describe('client addresses', () => {
    it('IPv6 addresses are grouped by /64', async () => {
      const a = await app({ trustProxy: true, options: { limit: 2, window: '1m' } })
      expect((await get(a, '/', fwd('2001:db8:1:2::1'))).status).toBe(200)
      expect((await get(a, '/', fwd('2001:db8:1:2:ffff:ffff:ffff:9'))).status).toBe(200)
      expect((await get(a, '/', fwd('2001:db8:1:2:abcd::5'))).status).toBe(429)
      expect((await get(a, '/', fwd('2001:db8:1:3::1'))).status).toBe(200)
    })

    it('ipv6Subnet is configurable (128: every address alone)', async () => {
      const a = await app({ trustProxy: true, options: { limit: 1, window: '1m', ipv6Subnet: 128 } })
      expect((await get(a, '/', fwd('2001:db8::1'))).status).toBe(200)
      expect((await get(a, '/', fwd('2001:db8::2'))).status).toBe(200)
      expect((await get(a, '/', fwd('2001:db8::1'))).status).toBe(429)
    })

    it('an IPv4-mapped IPv6 address is its IPv4 address', async () => {
      const a = await app({ trustProxy: true, options: { limit: 2, window: '1m' } })
      expect((await get(a, '/', fwd('203.0.113.7'))).status).toBe(200)
      expect((await get(a, '/', fwd('::ffff:203.0.113.7'))).status).toBe(200)
      expect((await get(a, '/', fwd('::ffff:cb00:7107'))).status).toBe(429)
      expect((await get(a, '/', fwd('203.0.113.8'))).status).toBe(200)
    })

    it('trust proxy off: a spoofed X-Forwarded-For does not pick a bucket', async () => {
      const a = await app({ trustProxy: false, options: { limit: 2, window: '1m' } })
      expect((await get(a, '/', fwd('192.0.2.1'))).status).toBe(200)
      expect((await get(a, '/', fwd('192.0.2.2'))).status).toBe(200)
      expect((await get(a, '/', fwd('192.0.2.3'))).status).toBe(429)
    })

    it('trust proxy on: the forwarded client address is the key', async () => {
      const a = await app({ trustProxy: true, options: { limit: 1, window: '1m' } })
      expect((await get(a, '/', fwd('192.0.2.1'))).status).toBe(200)
      expect((await get(a, '/', fwd('192.0.2.2'))).status).toBe(200)
      expect((await get(a, '/', fwd('192.0.2.1'))).status).toBe(429)
    })

    it('trusting only the proxy: entries the client wrote before it are ignored', async () => {
      const a = await app({ trustProxy: 'loopback', options: { limit: 2, window: '1m' } })
      expect((await get(a, '/', fwd('6.6.6.1, 198.51.100.9'))).status).toBe(200)
      expect((await get(a, '/', fwd('6.6.6.2, 198.51.100.9'))).status).toBe(200)
      expect((await get(a, '/', fwd('6.6.6.3, 198.51.100.9'))).status).toBe(429)
      expect((await get(a, '/', fwd('6.6.6.3, 198.51.100.10'))).status).toBe(200)
    })

    it('a missing address is an error (500, onError), never a shared key', async () => {
      const errors: unknown[] = []
      const a = await app({
        noAddress: true,
        options: { limit: 100, window: '1m', onError: (error: unknown) => errors.push(error) },
      })
      const res = await get(a)
      expect(res.status).toBe(500)
      expect(res.body.error).toBe('client_address_unknown')
      expect(errors).toHaveLength(1)
      expect((errors[0] as { code: string }).code).toBe('ERR_FLOODGATE_NO_CLIENT_ADDRESS')
    })

    it("a 'global' policy needs no address", async () => {
      const a = await app({ noAddress: true, options: { key: 'global', limit: 1, window: '1m' } })
      expect(await statuses(a, 2)).toEqual([200, 429])
    })
  })
}
