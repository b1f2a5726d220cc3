// Regression: one IPv6 client rotating through its /64 got a fresh bucket per address and escaped the limit.
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, openApps } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it('a client rotating through its /64 stays in one bucket', async () => {
    const app = open(
      await driver.createApp({
        trustProxy: true,
        options: { limit: 3, window: '1m', store: new MemoryStore() },
      }),
    )
    const codes = []
    for (let i = 1; i <= 6; i++) {
      codes.push(
        (
          await app.request({
            path: '/',
            headers: { 'X-Forwarded-For': `2001:db8:aa:bb:${i.toString(16)}::${i}` },
          })
        ).status,
      )
    }
    expect(codes).toEqual([200, 200, 200, 429, 429, 429])
  })

  it('with ipv6Subnet: 56, a client rotating through its /56 stays in one bucket', async () => {
    const app = open(
      await driver.createApp({
        trustProxy: true,
        options: { limit: 2, window: '1m', ipv6Subnet: 56, store: new MemoryStore() },
      }),
    )
    const send = (ip: string) => app.request({ path: '/', headers: { 'X-Forwarded-For': ip } })
    expect((await send('2001:db8:aa:bb01::1')).status).toBe(200)
    expect((await send('2001:db8:aa:bbff::1')).status).toBe(200)
    expect((await send('2001:db8:aa:bb42::1')).status).toBe(429)
    expect((await send('2001:db8:aa:cc00::1')).status).toBe(200)
  })
})
