// Regression: with a per-user key, every logged-out request shared one `undefined` bucket, so one client locked out everyone.
import { MemoryStore } from '@floodgate/core'
import { afterEach, describe, expect, it } from 'vitest'
import { drivers } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const apps: { close(): Promise<void> }[] = []
  afterEach(async () => Promise.all(apps.splice(0).map((a) => a.close())))

  it('requests without a user are keyed by their IP', async () => {
    const app = await driver.createApp({
      trustProxy: true,
      options: {
        key: 'user',
        user: (req: { headers: Record<string, string | undefined> }) => req.headers['x-user'],
        limit: 1,
        window: '1m',
        store: new MemoryStore(),
      },
    })
    apps.push(app)
    const send = (ip: string) => app.request({ path: '/', headers: { 'X-Forwarded-For': ip } })
    expect((await send('198.51.100.1')).status).toBe(200)
    expect((await send('198.51.100.1')).status).toBe(429)
    expect((await send('198.51.100.2')).status).toBe(200)
    expect((await send('198.51.100.3')).status).toBe(200)
  })
})
