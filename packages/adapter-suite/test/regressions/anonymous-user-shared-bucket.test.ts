// Regression: with a per-user key, every logged-out request shared one `undefined` bucket, so one client locked out everyone.
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, openApps } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it('requests without a user are keyed by their IP', async () => {
    const app = open(
      await driver.createApp({
        trustProxy: true,
        options: {
          key: 'user',
          user: (req: { headers: Record<string, string | undefined> }) => req.headers['x-user'],
          limit: 1,
          window: '1m',
          store: new MemoryStore(),
        },
      }),
    )
    const send = (ip: string) => app.request({ path: '/', headers: { 'X-Forwarded-For': ip } })
    expect((await send('198.51.100.1')).status).toBe(200)
    expect((await send('198.51.100.1')).status).toBe(429)
    expect((await send('198.51.100.2')).status).toBe(200)
    expect((await send('198.51.100.3')).status).toBe(200)
  })
})
