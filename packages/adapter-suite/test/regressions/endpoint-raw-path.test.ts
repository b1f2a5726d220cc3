// Regression: an 'endpoint' key built from the raw path gave every id its own bucket (/users/1, /users/2, ...).
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, openApps } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it('the route pattern, not the path, is the endpoint', async () => {
    const app = open(
      await driver.createApp({
        routes: [
          {
            path: '/orders/:id',
            rateLimit: { key: 'endpoint', name: 'orders', limit: 3, window: '1m', store: new MemoryStore() },
          },
        ],
      }),
    )
    const codes = []
    for (let i = 0; i < 5; i++) codes.push((await app.request({ path: `/orders/${i}` })).status)
    expect(codes).toEqual([200, 200, 200, 429, 429])
  })
})
