// Regression: an IPv4 client seen as ::ffff:a.b.c.d got a bucket apart from a.b.c.d (or all mapped clients one bucket).
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, openApps } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it('::ffff:a.b.c.d is a.b.c.d, and two mapped clients are two buckets', async () => {
    const app = open(
      await driver.createApp({
        trustProxy: true,
        options: { limit: 2, window: '1m', store: new MemoryStore() },
      }),
    )
    const send = (ip: string) => app.request({ path: '/', headers: { 'X-Forwarded-For': ip } })
    expect((await send('::ffff:198.51.100.20')).status).toBe(200)
    expect((await send('198.51.100.20')).status).toBe(200)
    expect((await send('::ffff:198.51.100.20')).status).toBe(429)
    expect((await send('::ffff:198.51.100.21')).status).toBe(200)
    expect((await send('::ffff:198.51.100.22')).status).toBe(200)
  })
})
