// Regression: a client sending its own X-Forwarded-For picked a fresh bucket on every request.
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, openApps } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it('without trust proxy, X-Forwarded-For is never read', async () => {
    const app = open(
      await driver.createApp({ options: { limit: 3, window: '1m', store: new MemoryStore() } }),
    )
    const codes = []
    for (let i = 0; i < 5; i++) {
      codes.push((await app.request({ path: '/', headers: { 'X-Forwarded-For': `192.0.2.${i}` } })).status)
    }
    expect(codes).toEqual([200, 200, 200, 429, 429])
  })

  it('behind one trusted proxy, what the client wrote before the proxy entry is ignored', async () => {
    const app = open(
      await driver.createApp({
        trustProxy: 'loopback',
        options: { limit: 2, window: '1m', store: new MemoryStore() },
      }),
    )
    const codes = []
    for (let i = 0; i < 4; i++) {
      codes.push(
        (await app.request({ path: '/', headers: { 'X-Forwarded-For': `10.${i}.0.1, 203.0.113.50` } }))
          .status,
      )
    }
    expect(codes).toEqual([200, 200, 429, 429])
  })
})
