// Regression: `skip: (req) => req.user.isAdmin` threw for an anonymous request, which took failMode and let
// it through unlimited. A skip function that throws or rejects does not skip: the request is counted.
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, errorLog, openApps, statusesOf } from '../../src/index.js'

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it.each([
    ['throws', (req: any) => req.user.isAdmin],
    ['rejects', async (req: any) => req.user.isAdmin],
  ])('a skip function that %s counts the request', async (_name, skip) => {
    const log = errorLog()
    const a = open(
      await driver.createApp({
        options: {
          limit: 5,
          window: '1m',
          skip,
          failMode: 'open',
          store: new MemoryStore(),
          onError: log.onError,
        },
      }),
    )
    const codes = await statusesOf(a, 20)
    expect(codes.filter((s) => s === 200)).toHaveLength(5)
    expect(log.codes()).toEqual(Array(20).fill('ERR_FLOODGATE_FUNCTION_FAILED'))
  })
})
