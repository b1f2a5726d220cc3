import { request as httpRequest } from 'node:http'
import { fixedWindow } from '@floodgate/core'
import { describe, expect, it, vi } from 'vitest'
import { errorLog, type SuiteContext } from '../harness.js'
import type { AdapterRoute } from '../types.js'

/**
 * What a route's response says it cost (`X-Tokens`), read from the framework's response object the `settle`
 * option gets: Express `res` and Fastify `reply` (`getHeader`), Koa `ctx` (`ctx.response.get`).
 */
function tokensOf(res: any): number {
  const value = typeof res.getHeader === 'function' ? res.getHeader('x-tokens') : res.response.get('x-tokens')
  return Number(value)
}

/** The path of the request a `settle` function got (Express `req`, Fastify `request`, Koa `ctx`). */
const pathOf = (req: any): string => String(req.url)

/** The scenarios of settled costs (`settle`, `req.rateLimit.settle(n)`), for one adapter on one store. */
export function settledCosts({ app, get, store }: SuiteContext): void {
  describe('settled costs', () => {
    const tenPerMinute = () => fixedWindow({ limit: 10, window: '1m' })

    it('settle reads the actual cost from the response: above the estimate it is charged, the key goes over its limit and waits with an honest Retry-After; a refused request is not settled', async () => {
      const settle = vi.fn((res: unknown) => tokensOf(res))
      const a = await app({
        routes: [{ path: '/chat', tokens: 6 }],
        options: { algorithm: tenPerMinute(), settle },
      })
      const first = await get(a, '/chat')
      expect(first.status).toBe(200)
      expect(first.headers['ratelimit-remaining']).toBe('9')
      await vi.waitFor(() => expect(store().charges).toBe(1))
      const second = await get(a, '/chat')
      expect(second.headers['ratelimit-remaining']).toBe('3') // 6 settled + 1 estimated, of 10
      await vi.waitFor(() => expect(store().charges).toBe(2)) // 12 of 10: over
      const refused = await get(a, '/chat')
      expect(refused.status).toBe(429)
      expect(refused.headers['retry-after']).toBe('60') // until the window ends, not before
      expect(settle).toHaveBeenCalledTimes(2)
    })

    it('below the estimate, the difference is given back', async () => {
      const a = await app({
        routes: [{ path: '/chat', tokens: 0 }],
        options: { algorithm: tenPerMinute(), cost: 3, settle: (res: unknown) => tokensOf(res) },
      })
      expect((await get(a, '/chat')).headers['ratelimit-remaining']).toBe('7')
      await vi.waitFor(() => expect(store().refunds).toBe(1))
      expect((await get(a, '/chat')).headers['ratelimit-remaining']).toBe('7')
    })

    it('a settle that throws is reported and the estimate stands', async () => {
      const log = errorLog()
      const a = await app({
        options: {
          algorithm: tenPerMinute(),
          cost: 2,
          onError: log.onError,
          settle: () => {
            throw new Error('no usage in this response')
          },
        },
      })
      expect((await get(a)).status).toBe(200)
      await vi.waitFor(() => expect(log.codes()).toEqual(['ERR_FLOODGATE_FUNCTION_FAILED']))
      expect((await get(a)).headers['ratelimit-remaining']).toBe('6')
      expect(store().charges + store().refunds).toBe(0)
    })

    it('a streamed response settles itself with req.rateLimit.settle(n), and the settle function is not called for it', async () => {
      const settled = vi.fn((_res: unknown, _req: unknown) => 1)
      const routes: AdapterRoute[] = [
        { path: '/stream', stream: { chunks: ['to', 'ken', 's'], settle: 5 } },
        { path: '/' },
      ]
      const a = await app({ routes, options: { algorithm: tenPerMinute(), settle: settled } })
      const streamed = await get(a, '/stream')
      expect(streamed.status).toBe(200)
      expect(streamed.headers['ratelimit-remaining']).toBe('9')
      await vi.waitFor(() => expect(store().charges).toBe(1))
      expect((await get(a, '/')).headers['ratelimit-remaining']).toBe('4') // 5 settled + 1, of 10
      await vi.waitFor(() => expect(settled).toHaveBeenCalledTimes(1))
      expect(settled.mock.calls.map(([, req]) => pathOf(req))).toEqual(['/'])
    })

    it('a client that leaves mid-response: its settle function is still called once, and what it returns is charged', async () => {
      let entered!: () => void
      const inRoute = new Promise<void>((resolve) => {
        entered = resolve
      })
      let release!: () => void
      const held = new Promise<void>((resolve) => {
        release = resolve
      })
      const settle = vi.fn(() => 4)
      const a = await app({
        routes: [
          {
            path: '/slow',
            wait: () => {
              entered()
              return held
            },
          },
          { path: '/' },
        ],
        options: { algorithm: tenPerMinute(), settle },
      })
      const url = new URL('/slow', await a.listen())
      const client = httpRequest(url)
      client.on('error', () => {}) // it is cut off on purpose
      client.end()
      await inRoute
      client.destroy()
      await vi.waitFor(() => expect(store().charges).toBe(1))
      expect(settle).toHaveBeenCalledTimes(1)
      release()
      expect((await get(a, '/')).headers['ratelimit-remaining']).toBe('5') // 4 settled + 1, of 10
    })
  })
}
