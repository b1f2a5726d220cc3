// Regression: a cost of 1e-300 vanished in floating point (count + 1e-300 === count), so such a client was
// never limited. Costs are counted in 1/1024ths of a unit, rounded up: every request that costs something
// spends at least 1/1024, and sums stay exact.
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, openApps } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it('a cost of 1e-300 spends 1/1024: after 1023/1024 of the limit, one passes and the next is refused', async () => {
    const a = open(
      await driver.createApp({
        options: {
          limit: 1,
          window: '1h',
          store: new MemoryStore(),
          cost: (req: { headers: Record<string, string | undefined> }) => Number(req.headers['x-cost']),
        },
      }),
    )
    const send = async (cost: string) => (await a.request({ path: '/', headers: { 'x-cost': cost } })).status
    expect(await send(String(1023 / 1024))).toBe(200)
    expect(await send('1e-300')).toBe(200)
    expect(await send('1e-300')).toBe(429)
    expect(await send('0')).toBe(200) // free: still allowed
  })
})
