// Regression: an async key or user function was not awaited (its promise counted as "nothing"), and one that
// rejected (a forged session id) was an unhandled rejection that exited the process; onError never heard of
// it. Both are awaited now: an answer keys the request, a rejection counts it by its address.
import { MemoryStore } from '@floodgate/core'
import { watchUnhandled } from '@floodgate/test-harness'
import { describe, expect, it } from 'vitest'
import { drivers, errorLog, fwd, openApps, statusesOf } from '../../src/index.js'

const sessions = new Map([['s1', { id: 'alice' }]])
const lookup = async (sid: string | undefined) => {
  await new Promise((resolve) => setImmediate(resolve))
  return sessions.get(sid ?? '')
}

const unhandled = watchUnhandled()

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it('an async key function is awaited; one that rejects counts by the address and is reported', async () => {
    const log = errorLog()
    const a = open(
      await driver.createApp({
        trustProxy: true,
        options: {
          limit: 2,
          window: '1m',
          store: new MemoryStore(),
          onError: log.onError,
          key: async (req: { headers: Record<string, string | undefined> }) =>
            (await lookup(req.headers['x-sid']))!.id, // rejects for a forged session id
        },
      }),
    )
    // Alice's session keys her requests wherever she comes from.
    expect(await statusesOf(a, 2, { headers: { ...fwd('198.51.100.1'), 'x-sid': 's1' } })).toEqual([200, 200])
    expect(await statusesOf(a, 1, { headers: { ...fwd('198.51.100.2'), 'x-sid': 's1' } })).toEqual([429])
    // A forged id: the rejection is handled, the request counted by its address, the server still serves.
    expect(await statusesOf(a, 3, { headers: { ...fwd('198.51.100.3'), 'x-sid': 'forged' } })).toEqual([
      200, 200, 429,
    ])
    expect(log.codes()).toEqual(Array(3).fill('ERR_FLOODGATE_FUNCTION_FAILED'))
    expect(unhandled).toEqual([])
  })

  it('an async user function is awaited too', async () => {
    const a = open(
      await driver.createApp({
        trustProxy: true,
        options: {
          limit: 1,
          window: '1m',
          key: 'user',
          store: new MemoryStore(),
          onError: () => {},
          user: async (req: { headers: Record<string, string | undefined> }) =>
            (await lookup(req.headers['x-sid']))?.id,
        },
      }),
    )
    expect(await statusesOf(a, 1, { headers: { ...fwd('198.51.100.1'), 'x-sid': 's1' } })).toEqual([200])
    expect(await statusesOf(a, 1, { headers: { ...fwd('198.51.100.2'), 'x-sid': 's1' } })).toEqual([429])
    expect(await statusesOf(a, 1, { headers: fwd('198.51.100.2') })).toEqual([200])
    expect(unhandled).toEqual([])
  })
})
