// Regression: IPv4-compatible addresses (::a.b.c.d) were IPv6 keyed by ::/64, so every such client shared one
// bucket with each other and with ::1, and the same host got a second bucket apart from a.b.c.d.
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, fwd, openApps } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it('::a.b.c.d is a.b.c.d in every spelling; two such clients and ::1 are three buckets', async () => {
    const app = open(
      await driver.createApp({
        trustProxy: true,
        options: { limit: 2, window: '1m', store: new MemoryStore() },
      }),
    )
    const send = async (ip: string) => (await app.request({ path: '/', headers: fwd(ip) })).status
    // One host, five spellings, one bucket of 2.
    expect(await send('::198.51.100.20')).toBe(200)
    expect(await send('198.51.100.20')).toBe(200)
    expect(await send('::c633:6414')).toBe(429)
    expect(await send('::ffff:198.51.100.20')).toBe(429)
    expect(await send('0:0:0:0:0:0:198.51.100.20')).toBe(429)
    // Other compatible clients are buckets of their own, and none of them is ::1's.
    expect(await send('::198.51.100.21')).toBe(200)
    expect(await send('::198.51.100.22')).toBe(200)
    expect(await send('::1')).toBe(200)
    expect(await send('::0.0.0.1')).toBe(200)
    expect(await send('::1')).toBe(429)
  })
})
