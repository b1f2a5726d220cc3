// Regression: peers let limit + 1 requests through, or refused all of a concurrent burst.
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, openApps } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it('exactly `limit` of a concurrent burst pass', async () => {
    const app = open(
      await driver.createApp({
        options: { limit: 10, window: '1m', store: new MemoryStore() },
      }),
    )
    const responses = await Promise.all(Array.from({ length: 30 }, () => app.request({ path: '/' })))
    expect(responses.filter((r) => r.status === 200)).toHaveLength(10)
    expect(responses.filter((r) => r.status === 429)).toHaveLength(20)
    expect(responses.every((r) => Number(r.headers['ratelimit-remaining']) >= 0)).toBe(true)
  })
})
