// Regression: a key function that threw, or returned something that is not a key, took failMode and let
// every request through. It now counts the request by its client address, as a key function that returns
// nothing does, and reports once: clients stay apart, and none gets more than its address's quota.
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, errorLog, fwd, openApps, statusesOf } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it.each([
    [
      'throws',
      () => {
        throw new Error('no tenant')
      },
    ],
    ['returns an object', () => ({ tenant: 1 })],
    ['returns a boolean', () => true],
    ['returns NaN', () => Number.NaN],
    ['returns a nested array', () => [['a']]],
  ])('a key function that %s counts by the address, per address', async (_name, key) => {
    const log = errorLog()
    const a = open(
      await driver.createApp({
        trustProxy: true,
        options: { limit: 2, window: '1m', key, store: new MemoryStore(), onError: log.onError },
      }),
    )
    expect(await statusesOf(a, 3, { headers: fwd('198.51.100.1') })).toEqual([200, 200, 429])
    expect(await statusesOf(a, 3, { headers: fwd('198.51.100.2') })).toEqual([200, 200, 429])
    expect(log.errors).toHaveLength(6)
  })
})
