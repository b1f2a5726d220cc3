// Regression: on Express, a custom handler that set a header with CR/LF or a non-Latin-1 value, or a status
// of NaN, threw inside the adapter's promise chain: the process exited (code 1) and the client got nothing.
// Every adapter now answers 500, calls onError, and keeps serving.
import { fixedWindow, MemoryStore, type Outcome } from '@floodgate/core'
import { watchUnhandled } from '@floodgate/test-harness'
import { describe, expect, it } from 'vitest'
import { drivers, errorLog, openApps } from '../../src/index.js'

const unhandled = watchUnhandled()
// A clock that stands still: the wall clock's minute could turn between two requests and let the last one through.
const START = Date.UTC(2026, 0, 1, 12, 0, 30)

describe.each(drivers)('$name', (driver) => {
  const open = openApps()
  const refusing = async (extra: Record<string, unknown>) => {
    const log = errorLog()
    const app = open(
      await driver.createApp({
        options: {
          algorithm: fixedWindow({ limit: 1, window: '1m' }),
          store: new MemoryStore(),
          clock: () => START,
          onError: log.onError,
          ...extra,
        },
        routes: [{ path: '/' }, { path: '/free', rateLimit: undefined }],
      }),
    )
    expect((await app.request({ path: '/' })).status).toBe(200)
    return { app, log }
  }

  it.each([
    ['a header with CR/LF', { headers: { 'x-why': 'a\r\nset-cookie: pwned=1' } }],
    ['a non-Latin-1 header value', { headers: { 'x-why': 'refusé ✋' } }],
    ['a header name that is not a token', { headers: { 'x why': '1' } }],
    ['a status of NaN', { status: Number.NaN }],
    ['a status of 99', { status: 99 }],
    ['a body JSON cannot hold', { body: { n: 10n } }],
  ])(
    'a custom handler returning %s answers 500, is reported, and the server goes on',
    async (_name, response) => {
      const { app, log } = await refusing({ handler: () => response })
      const res = await app.request({ path: '/' })
      expect(res.status).toBe(500)
      expect(res.body.error).toBe('internal_error')
      expect(res.headers['set-cookie']).toBeUndefined()
      expect(log.codes()).toEqual(['ERR_FLOODGATE_INVALID_RESPONSE'])
      expect((await app.request({ path: '/' })).status).toBe(500)
      expect(unhandled).toEqual([])
    },
  )

  it('an onLimited hook that breaks the headers cannot crash the adapter either', async () => {
    const { app, log } = await refusing({
      onLimited: (_req: unknown, outcome: Outcome) => {
        outcome.headers['x-broken'] = 'a\nb'
      },
    })
    const res = await app.request({ path: '/' })
    expect(res.status).toBe(500)
    expect(log.codes()).toEqual(['ERR_FLOODGATE_RESPONSE_FAILED'])
    expect((await app.request({ path: '/' })).status).toBe(500)
    expect(unhandled).toEqual([])
  })
})
