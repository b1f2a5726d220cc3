// Regression: a key function returning `[undefined]`, `[null]`, `['']` or `[undefined, undefined]` put every
// client into one bucket. An array of nothing is nothing: the request is keyed by its client address.
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, fwd, openApps, statusesOf } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it.each([[[undefined]], [[null]], [['']], [[undefined, undefined]], [[]], [[null, '']]])(
    'a key of %j counts each client by its address',
    async (value) => {
      const a = open(
        await driver.createApp({
          trustProxy: true,
          options: { limit: 2, window: '1m', store: new MemoryStore(), key: () => value },
        }),
      )
      expect(await statusesOf(a, 3, { headers: fwd('198.51.100.1') })).toEqual([200, 200, 429])
      expect(await statusesOf(a, 3, { headers: fwd('198.51.100.2') })).toEqual([200, 200, 429])
    },
  )
})
