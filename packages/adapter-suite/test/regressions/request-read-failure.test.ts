// Regression: on Express 4 the route lookup read `req.app.router`, which throws there ('app.router' is
// deprecated!); the handler took the throw for a store failure (ERR_FLOODGATE_STORE_FAILED) and, with the
// default failMode 'open', let the request through. `failMode` is for a store that cannot answer: a failure in
// reading the request now leaves it limited, as a request whose route is unknown (one bucket per method), and
// is reported as ERR_FLOODGATE_REQUEST_READ_FAILED.
import { fixedWindow, MemoryStore, type RequestInfo } from '@floodgate/core'
import { createRateLimitHandler } from '@floodgate/core/internal'
import { describe, expect, it } from 'vitest'
import { drivers, openApps } from '../../src/index.js'

const codes = (errors: unknown[]) => errors.map((e) => (e as { code?: string }).code)

// Fastify gives the route itself (the pattern it routed on): the adapter has no lookup that could fail.
describe.each(drivers.filter((d) => d.framework !== 'fastify'))('$name', (driver) => {
  const open = openApps()
  const app = async (options: Record<string, unknown>) =>
    open(
      await driver.createApp({
        unreadableRouter: true,
        options: { key: 'endpoint', limit: 2, window: '1m', store: new MemoryStore(), ...options },
        routes: [{ path: '/users/:id' }, { path: '/other' }],
      }),
    )

  for (const failMode of ['open', 'closed'] as const) {
    it(`a route lookup that throws leaves the request limited (failMode '${failMode}'), under its own code`, async () => {
      const errors: unknown[] = []
      const a = await app({ failMode, onError: (error: unknown) => errors.push(error) })
      const statuses = []
      for (const path of ['/users/1', '/users/2', '/other', '/users/3'])
        statuses.push((await a.request({ path })).status)
      // The route unknown: every GET shares one bucket of 2.
      expect(statuses).toEqual([200, 200, 429, 429])
      expect(codes(errors)).toEqual(Array(4).fill('ERR_FLOODGATE_REQUEST_READ_FAILED'))
      expect((errors[0] as Error).message).toContain("limited as one whose route is unknown ('GET *')")
      expect((errors[0] as Error).cause).toEqual(new Error('a router the lookup cannot read'))
    })
  }
})

// Express and Fastify compute the client address with the app's trust-proxy setting, which may be a function
// of the app's own: one that throws made the adapter throw before core ran (the framework's own 500, reported
// nowhere). Koa takes no function there.
describe.each(drivers.filter((d) => d.framework !== 'koa'))(
  '$name: a client address that cannot be read',
  (driver) => {
    const open = openApps()

    for (const failMode of ['open', 'closed'] as const) {
      it(`a trust-proxy function that throws leaves the request refused (failMode '${failMode}'), under its own code, never a shared key`, async () => {
        const errors: unknown[] = []
        const a = open(
          await driver.createApp({
            trustProxy: () => {
              throw new Error('the proxy list is unreadable')
            },
            options: {
              limit: 5,
              window: '1m',
              store: new MemoryStore(),
              failMode,
              onError: (e: unknown) => errors.push(e),
            },
          }),
        )
        const forwarded = { 'x-forwarded-for': '198.51.100.1' }
        const first = await a.request({ path: '/', headers: forwarded })
        const second = await a.request({ path: '/', headers: forwarded })
        expect([first.status, second.status]).toEqual([500, 500])
        expect(codes(errors)).toEqual([
          'ERR_FLOODGATE_REQUEST_READ_FAILED',
          'ERR_FLOODGATE_NO_CLIENT_ADDRESS',
          'ERR_FLOODGATE_REQUEST_READ_FAILED',
          'ERR_FLOODGATE_NO_CLIENT_ADDRESS',
        ])
        expect((errors[0] as Error).message).toContain('refused as one whose client address is unknown')
        expect((errors[0] as Error).cause).toEqual(new Error('the proxy list is unreadable'))
        // A request with no forwarded address never asks the function: it is counted as usual.
        expect((await a.request({ path: '/' })).status).toBe(200)
      })
    }
  },
)

describe('any adapter', () => {
  /** A request whose route an adapter fails to read. */
  const unreadable = (path: string): RequestInfo => ({
    ip: '203.0.113.7',
    method: 'GET',
    get route(): string {
      throw new Error('no router here')
    },
    path,
    headers: {},
    native: {},
  })

  it("a route getter that throws is not a store failure: the request is limited, failMode 'open' or not", async () => {
    const errors: unknown[] = []
    const handler = createRateLimitHandler({
      limits: [
        { name: 'endpoint', key: ['ip', 'endpoint'], algorithm: fixedWindow({ limit: 1, window: '1m' }) },
      ],
      onError: (error) => errors.push(error),
    })
    const first = await handler.handle(unreadable('/a'))
    const second = await handler.handle(unreadable('/b'))
    expect([first.kind, second.kind]).toEqual(['pass', 'answer'])
    expect(second.status).toBe(429)
    expect(codes(errors)).toEqual(['ERR_FLOODGATE_REQUEST_READ_FAILED', 'ERR_FLOODGATE_REQUEST_READ_FAILED'])
  })

  it('a limiter that never reads the route never meets the failure', async () => {
    const errors: unknown[] = []
    const handler = createRateLimitHandler({ limit: 1, window: '1m', onError: (error) => errors.push(error) })
    expect((await handler.handle(unreadable('/a'))).kind).toBe('pass')
    expect((await handler.handle(unreadable('/a'))).kind).toBe('answer')
    expect(errors).toEqual([])
  })
})
