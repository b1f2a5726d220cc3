// Regression: Reset headers mixed epoch and delta seconds, showed 0 while requests were still counted, or were fractional.
import { fixedWindow, MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, openApps } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()
  const START = Date.UTC(2026, 0, 1, 12)

  it('draft headers are delta seconds rounded up; legacy is epoch seconds', async () => {
    const now = START + 9_999.5 // half a millisecond before the window ends
    const app = open(
      await driver.createApp({
        options: {
          headers: ['draft-6', 'legacy'],
          algorithm: fixedWindow({ limit: 5, window: '10s' }),
          clock: () => now,
          store: new MemoryStore(),
        },
      }),
    )
    const res = await app.request({ path: '/' })
    expect(res.headers['ratelimit-reset']).toBe('1')
    expect(res.headers['x-ratelimit-reset']).toBe(String((START + 10_000) / 1000))
  })
})
