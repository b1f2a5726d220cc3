// Regression: `user: (req) => req.session.user.id` threw on a request without a session, which took
// failMode and let it through unlimited. A user function that throws, rejects or returns a non-id counts the
// request by its client address in the 'user' policy, and reports once.
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, errorLog, fwd, openApps, statusesOf } from '../../src/index.js'

const session = (req: { headers: Record<string, string | undefined> }) =>
  req.headers['x-session'] ? { user: { id: req.headers['x-session'] } } : undefined

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it.each([
    ['throws without a session', (req: any) => (session(req) as any).user.id],
    ['rejects without a session', async (req: any) => (session(req) as any).user.id],
    ['returns an object', (req: any) => session(req)?.user.id ?? {}],
  ])('a user function that %s counts by the address', async (_name, user) => {
    const log = errorLog()
    const a = open(
      await driver.createApp({
        trustProxy: true,
        options: {
          limit: 2,
          window: '1m',
          key: 'user',
          user,
          store: new MemoryStore(),
          onError: log.onError,
        },
      }),
    )
    expect(await statusesOf(a, 3, { headers: fwd('198.51.100.1') })).toEqual([200, 200, 429])
    expect(await statusesOf(a, 3, { headers: fwd('198.51.100.2') })).toEqual([200, 200, 429])
    expect(log.errors).toHaveLength(6)
    // With a session, the user has a bucket of their own, wherever they come from.
    expect(await statusesOf(a, 3, { headers: { ...fwd('198.51.100.1'), 'x-session': 'alice' } })).toEqual([
      200, 200, 429,
    ])
  })
})
