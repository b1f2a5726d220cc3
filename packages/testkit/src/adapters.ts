import {
  type ConsumeItem,
  type Decision,
  fixedWindow,
  leakyBucket,
  type Outcome,
  type Store,
} from '@floodgate/core'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import type { StoreFactory } from './conformance.js'
import { virtualClock } from './virtual-clock.js'

/** One route of a test app. Every route answers `{ ok: true }` with `status` (200 by default). */
export interface AdapterRoute {
  /** @default 'GET' */
  method?: 'GET' | 'POST'
  /** A path or a pattern (`/users/:id`). */
  path: string
  /** @default 200 */
  status?: number
  /** Options of a limiter on this route alone (Express route middleware, Fastify `config.rateLimit`, Koa router middleware). */
  rateLimit?: Record<string, unknown>
}

/** How the driver builds an app. */
export interface AdapterAppSetup {
  /** Options of an app-wide limiter (`app.use`, `app.register`); none when `undefined`. */
  options?: Record<string, unknown>
  /** @default [{ path: '/' }] */
  routes?: AdapterRoute[]
  /**
   * The framework's own trust-proxy setting: `false` (the socket address), `true` (the leftmost
   * `X-Forwarded-For` entry), `'loopback'` (the entry the loopback proxy appended: the rightmost).
   * @default false
   */
  trustProxy?: boolean | 'loopback'
  /** Make the framework's client address unknown (empty), as for a socket that is already gone. */
  noAddress?: boolean
}

export interface AdapterRequest {
  /** @default 'GET' */
  method?: string
  path: string
  headers?: Record<string, string>
}

export interface AdapterResponse {
  status: number
  /** Header names in lower case. */
  headers: Record<string, string | undefined>
  /** Parsed JSON when the response is JSON, else the text. */
  body: any
}

export interface AdapterApp {
  request(request: AdapterRequest): Promise<AdapterResponse>
  close(): Promise<void>
}

/** What the suite needs from an adapter: build an app, send it requests (supertest, `fastify.inject`, ...). */
export interface AdapterDriver {
  name: string
  createApp(setup: AdapterAppSetup): AdapterApp | Promise<AdapterApp>
}

/** A store that records refunds, so tests can wait for the ones made when a response finished. */
interface WatchedStore extends Store {
  refunds: number
}

function watched(store: Store): WatchedStore {
  const wrapper: WatchedStore = {
    refunds: 0,
    consume: (a, k, c, now) => store.consume(a, k, c, now),
    peek: (a, k, c, now) => store.peek(a, k, c, now),
    async refund(a, k, c, now) {
      await store.refund(a, k, c, now)
      wrapper.refunds++
    },
    reset: (a, k) => store.reset(a, k),
    close: () => undefined,
  }
  if (store.consumeAll)
    wrapper.consumeAll = (items: readonly ConsumeItem[], now?: number) => store.consumeAll!(items, now)
  return wrapper
}

/** A broken store: every call throws, rejects, or never answers. */
function brokenStore(how: 'throw' | 'reject' | 'hang'): Store {
  const fail = (): any => {
    if (how === 'throw') throw new Error('store is down')
    if (how === 'reject') return Promise.reject(new Error('store is down'))
    return new Promise(() => {})
  }
  return { consume: fail, consumeAll: fail, peek: fail, refund: fail, reset: fail, close: () => undefined }
}

/** 2026-01-01T12:00:00Z: aligned to every window the tests use. */
const START = Date.UTC(2026, 0, 1, 12)
const fwd = (ip: string) => ({ 'X-Forwarded-For': ip })

/**
 * The adapter conformance suite: the same scenarios, through real HTTP or `inject`, for every adapter and
 * store. Time is a virtual clock; shaping delays are recorded by an injected `sleep`, never waited for.
 *
 * @example describeAdapterConformance(expressDriver, { create: () => new MemoryStore() })
 */
export function describeAdapterConformance(
  driver: AdapterDriver,
  factory: StoreFactory,
  storeName = 'memory',
): void {
  describe(`adapter conformance: ${driver.name} on ${storeName}`, () => {
    let base: Store
    let store: WatchedStore
    let apps: AdapterApp[] = []
    let run = 0
    const clock = virtualClock(START)

    beforeAll(async () => {
      base = await factory.create()
    })
    afterAll(async () => {
      if (factory.destroy) await factory.destroy(base)
      else await base.close()
    })
    afterEach(async () => {
      await Promise.all(apps.map((app) => app.close()))
      apps = []
    })

    /** Options every limiter in a test gets: the store, the virtual clock, a prefix unique to the test. */
    const common = () => ({ store, clock: clock.now, prefix: `adapters-${process.pid}-${START}-${run}` })

    async function app(setup: AdapterAppSetup & { options?: Record<string, unknown> }) {
      run++
      clock.set(START)
      store = watched(base)
      const shared = common()
      const built = await driver.createApp({
        ...setup,
        options: setup.options && { ...shared, ...setup.options },
        routes: setup.routes?.map((route) =>
          route.rateLimit ? { ...route, rateLimit: { ...shared, ...route.rateLimit } } : route,
        ),
      })
      apps.push(built)
      return built
    }

    const get = (a: AdapterApp, path = '/', headers?: Record<string, string>) => a.request({ path, headers })
    async function statuses(a: AdapterApp, n: number, path = '/', headers?: Record<string, string>) {
      const out: number[] = []
      for (let i = 0; i < n; i++) out.push((await get(a, path, headers)).status)
      return out
    }

    describe('headers', () => {
      const limit = (headers: unknown, extra: Record<string, unknown> = {}) => ({
        algorithm: fixedWindow({ limit: 5, window: '10s' }),
        headers,
        ...extra,
      })

      it('draft-6 by default: RateLimit-Limit, -Remaining, -Reset (delta seconds, rounded up), -Policy', async () => {
        const a = await app({ options: limit(undefined) })
        clock.advance(2_500)
        const res = await get(a)
        expect(res.status).toBe(200)
        expect(res.headers['ratelimit-limit']).toBe('5')
        expect(res.headers['ratelimit-remaining']).toBe('4')
        expect(res.headers['ratelimit-reset']).toBe('8') // 7.5 s rounds up
        expect(res.headers['ratelimit-policy']).toBe('5;w=10')
        expect(res.headers.ratelimit).toBeUndefined()
        expect(res.headers['x-ratelimit-limit']).toBeUndefined()
      })

      it('draft-7: one RateLimit field and RateLimit-Policy', async () => {
        const a = await app({ options: limit('draft-7') })
        clock.advance(3_000)
        await get(a)
        const res = await get(a)
        expect(res.headers.ratelimit).toBe('limit=5, remaining=3, reset=7')
        expect(res.headers['ratelimit-policy']).toBe('5;w=10')
        expect(res.headers['ratelimit-limit']).toBeUndefined()
      })

      it('draft-8: Structured Fields, one item per policy', async () => {
        const a = await app({
          options: {
            headers: 'draft-8',
            user: (req: { headers: Record<string, string> }) => req.headers['x-user'],
            limits: [
              { name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 100, window: '1m' }) },
              { name: 'user', key: 'user', algorithm: fixedWindow({ limit: 1000, window: '1h' }) },
            ],
          },
        })
        clock.advance(30_000)
        await get(a, '/', { 'X-User': 'alice' })
        const res = await get(a, '/', { 'X-User': 'alice' })
        expect(res.headers['ratelimit-policy']).toBe('"ip";q=100;w=60, "user";q=1000;w=3600')
        expect(res.headers.ratelimit).toBe('"ip";r=98;t=30, "user";r=998;t=3570')
      })

      it('legacy: X-RateLimit-* with Reset in epoch seconds', async () => {
        const a = await app({ options: limit('legacy') })
        clock.advance(1_200)
        const res = await get(a)
        expect(res.headers['x-ratelimit-limit']).toBe('5')
        expect(res.headers['x-ratelimit-remaining']).toBe('4')
        expect(res.headers['x-ratelimit-reset']).toBe(String((START + 10_000) / 1000))
        expect(res.headers['ratelimit-limit']).toBeUndefined()
      })

      it('an array combines modes; false sends none, but a 429 still has Retry-After', async () => {
        const both = await app({ options: limit(['draft-7', 'legacy']) })
        const res = await get(both)
        expect(res.headers.ratelimit).toBe('limit=5, remaining=4, reset=10')
        expect(res.headers['x-ratelimit-remaining']).toBe('4')

        const none = await app({
          options: limit(false, { algorithm: fixedWindow({ limit: 1, window: '10s' }) }),
        })
        const ok = await get(none)
        expect(ok.headers['ratelimit-limit']).toBeUndefined()
        expect(ok.headers.ratelimit).toBeUndefined()
        const refused = await get(none)
        expect(refused.status).toBe(429)
        expect(refused.headers['retry-after']).toBe('10')
        expect(refused.headers['ratelimit-limit']).toBeUndefined()
      })

      it('remaining never goes below 0 and the limit is exact (no limit + 1)', async () => {
        const a = await app({ options: limit('draft-6') })
        const codes = await statuses(a, 7)
        expect(codes).toEqual([200, 200, 200, 200, 200, 429, 429])
        const res = await get(a)
        expect(res.headers['ratelimit-remaining']).toBe('0')
      })
    })

    describe('refusals', () => {
      it('429 with Retry-After, Cache-Control: no-store and the JSON body', async () => {
        const a = await app({ options: { algorithm: fixedWindow({ limit: 2, window: '1m' }) } })
        clock.advance(30_000)
        await statuses(a, 2)
        const res = await get(a)
        expect(res.status).toBe(429)
        expect(res.headers['retry-after']).toBe('30')
        expect(res.headers['cache-control']).toBe('no-store')
        expect(res.headers['content-type']).toMatch(/^application\/json/)
        expect(res.body).toEqual({
          error: 'rate_limited',
          message: 'Too many requests, retry in 30 seconds.',
          retryAfter: 30,
          policy: 'ip',
        })
        expect(res.headers['ratelimit-remaining']).toBe('0')
      })

      it('Retry-After is at least 1 second', async () => {
        const a = await app({ options: { algorithm: fixedWindow({ limit: 1, window: '1s' }) } })
        clock.advance(999)
        await get(a)
        const res = await get(a)
        expect(res.headers['retry-after']).toBe('1')
        expect(res.body.message).toBe('Too many requests, retry in 1 second.')
      })

      it('RFC 9457 problem+json on request', async () => {
        const a = await app({ options: { limit: 1, window: '1m', format: 'problem+json' } })
        await get(a)
        const res = await get(a)
        expect(res.status).toBe(429)
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
        expect(res.body).toMatchObject({
          type: 'about:blank',
          title: 'Too Many Requests',
          status: 429,
          policy: 'ip',
        })
        expect(res.body.detail).toMatch(/^Too many requests, retry in \d+ seconds?\.$/)
      })

      it('a custom message, and a custom handler', async () => {
        const msg = await app({ options: { limit: 1, window: '1m', message: 'Slow down.' } })
        await get(msg)
        expect((await get(msg)).body.message).toBe('Slow down.')

        const custom = await app({
          options: {
            limit: 1,
            window: '1m',
            handler: (_req: unknown, outcome: Outcome) => ({
              status: 503,
              body: { custom: true, policy: outcome.decision?.policy },
            }),
          },
        })
        await get(custom)
        const res = await get(custom)
        expect(res.status).toBe(503)
        expect(res.body).toEqual({ custom: true, policy: 'ip' })
        expect(res.headers['retry-after']).toBe('120') // sliding window counter: the count decays over the next window
      })
    })

    describe('layered limits', () => {
      const layered = (extra: Record<string, unknown> = {}) => ({
        user: (req: { headers: Record<string, string | undefined> }) => req.headers['x-user'],
        limits: [
          { name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 3, window: '1m' }) },
          { name: 'user', key: 'user', algorithm: fixedWindow({ limit: 2, window: '1m' }) },
        ],
        ...extra,
      })

      it('all must allow; a refusal spends nothing in any policy', async () => {
        const a = await app({ options: layered() })
        const alice = { 'X-User': 'alice' }
        expect(await statuses(a, 2, '/', alice)).toEqual([200, 200])
        const refused = await get(a, '/', alice)
        expect(refused.status).toBe(429)
        expect(refused.body.policy).toBe('user')
        // The refused request took nothing from 'ip': one more passes for another user.
        const bob = await get(a, '/', { 'X-User': 'bob' })
        expect(bob.status).toBe(200)
        expect(bob.headers['ratelimit-remaining']).toBe('0')
        const third = await get(a, '/', { 'X-User': 'carol' })
        expect(third.status).toBe(429)
        expect(third.body.policy).toBe('ip')
      })

      it('draft-6 reports the policy closest to its limit', async () => {
        const a = await app({ options: layered() })
        const res = await get(a, '/', { 'X-User': 'alice' })
        expect(res.headers['ratelimit-limit']).toBe('2')
        expect(res.headers['ratelimit-remaining']).toBe('1')
        expect(res.headers['ratelimit-policy']).toBe('2;w=60')
      })

      it("a request with no user is keyed by its IP in the 'user' policy, never one shared bucket", async () => {
        const a = await app({
          trustProxy: true,
          options: {
            user: (req: { headers: Record<string, string | undefined> }) => req.headers['x-user'],
            key: 'user',
            limit: 2,
            window: '1m',
          },
        })
        expect(await statuses(a, 3, '/', fwd('198.51.100.1'))).toEqual([200, 200, 429])
        expect(await statuses(a, 2, '/', fwd('198.51.100.2'))).toEqual([200, 200])
        // A user id equal to an address is not that address's bucket.
        expect(await statuses(a, 2, '/', { ...fwd('198.51.100.9'), 'X-User': '198.51.100.1' })).toEqual([
          200, 200,
        ])
      })
    })

    describe('per-route limits and endpoints', () => {
      it('each route has its own limit', async () => {
        const a = await app({
          routes: [
            { path: '/a', rateLimit: { limit: 2, window: '1m' } },
            { path: '/b', rateLimit: { limit: 3, window: '1m' } },
            { path: '/free' },
          ],
        })
        expect(await statuses(a, 3, '/a')).toEqual([200, 200, 429])
        expect(await statuses(a, 4, '/b')).toEqual([200, 200, 200, 429])
        const free = await get(a, '/free')
        expect(free.status).toBe(200)
        expect(free.headers['ratelimit-limit']).toBeUndefined()
      })

      it('a request a route limit refuses spends nothing of the app-wide limit', async () => {
        const a = await app({
          options: { limit: 5, window: '1m' },
          routes: [{ path: '/x', rateLimit: { name: 'route', limit: 1, window: '1m' } }, { path: '/' }],
        })
        expect(await statuses(a, 3, '/x')).toEqual([200, 429, 429])
        // Express and Koa ran the app-wide limiter before the route's: the two refused requests were given
        // back (5 - 1 - 1 = 3 left); Fastify's route config replaces the app-wide policy (4 left).
        const res = await get(a, '/')
        expect(res.status).toBe(200)
        expect(Number(res.headers['ratelimit-remaining'])).toBeGreaterThanOrEqual(3)
      })

      it("'endpoint' is the method and route pattern: ids share one bucket", async () => {
        const a = await app({
          routes: [
            { path: '/users/:id', rateLimit: { key: 'endpoint', name: 'endpoint', limit: 2, window: '1m' } },
          ],
        })
        expect(await statuses(a, 1, '/users/1')).toEqual([200])
        expect(await statuses(a, 1, '/users/2')).toEqual([200])
        const res = await get(a, '/users/3')
        expect(res.status).toBe(429)
        expect(res.body.policy).toBe('endpoint')
      })
    })

    describe('client addresses', () => {
      it('IPv6 addresses are grouped by /64', async () => {
        const a = await app({ trustProxy: true, options: { limit: 2, window: '1m' } })
        expect((await get(a, '/', fwd('2001:db8:1:2::1'))).status).toBe(200)
        expect((await get(a, '/', fwd('2001:db8:1:2:ffff:ffff:ffff:9'))).status).toBe(200)
        expect((await get(a, '/', fwd('2001:db8:1:2:abcd::5'))).status).toBe(429)
        expect((await get(a, '/', fwd('2001:db8:1:3::1'))).status).toBe(200)
      })

      it('ipv6Subnet is configurable (128: every address alone)', async () => {
        const a = await app({ trustProxy: true, options: { limit: 1, window: '1m', ipv6Subnet: 128 } })
        expect((await get(a, '/', fwd('2001:db8::1'))).status).toBe(200)
        expect((await get(a, '/', fwd('2001:db8::2'))).status).toBe(200)
        expect((await get(a, '/', fwd('2001:db8::1'))).status).toBe(429)
      })

      it('an IPv4-mapped IPv6 address is its IPv4 address', async () => {
        const a = await app({ trustProxy: true, options: { limit: 2, window: '1m' } })
        expect((await get(a, '/', fwd('203.0.113.7'))).status).toBe(200)
        expect((await get(a, '/', fwd('::ffff:203.0.113.7'))).status).toBe(200)
        expect((await get(a, '/', fwd('::ffff:cb00:7107'))).status).toBe(429)
        expect((await get(a, '/', fwd('203.0.113.8'))).status).toBe(200)
      })

      it('trust proxy off: a spoofed X-Forwarded-For does not pick a bucket', async () => {
        const a = await app({ trustProxy: false, options: { limit: 2, window: '1m' } })
        expect((await get(a, '/', fwd('192.0.2.1'))).status).toBe(200)
        expect((await get(a, '/', fwd('192.0.2.2'))).status).toBe(200)
        expect((await get(a, '/', fwd('192.0.2.3'))).status).toBe(429)
      })

      it('trust proxy on: the forwarded client address is the key', async () => {
        const a = await app({ trustProxy: true, options: { limit: 1, window: '1m' } })
        expect((await get(a, '/', fwd('192.0.2.1'))).status).toBe(200)
        expect((await get(a, '/', fwd('192.0.2.2'))).status).toBe(200)
        expect((await get(a, '/', fwd('192.0.2.1'))).status).toBe(429)
      })

      it('trusting only the proxy: entries the client wrote before it are ignored', async () => {
        const a = await app({ trustProxy: 'loopback', options: { limit: 2, window: '1m' } })
        expect((await get(a, '/', fwd('6.6.6.1, 198.51.100.9'))).status).toBe(200)
        expect((await get(a, '/', fwd('6.6.6.2, 198.51.100.9'))).status).toBe(200)
        expect((await get(a, '/', fwd('6.6.6.3, 198.51.100.9'))).status).toBe(429)
        expect((await get(a, '/', fwd('6.6.6.3, 198.51.100.10'))).status).toBe(200)
      })

      it('a missing address is an error (500, onError), never a shared key', async () => {
        const errors: unknown[] = []
        const a = await app({
          noAddress: true,
          options: { limit: 100, window: '1m', onError: (error: unknown) => errors.push(error) },
        })
        const res = await get(a)
        expect(res.status).toBe(500)
        expect(res.body.error).toBe('client_address_unknown')
        expect(errors).toHaveLength(1)
        expect((errors[0] as { code: string }).code).toBe('ERR_FLOODGATE_NO_CLIENT_ADDRESS')
      })

      it("a 'global' policy needs no address", async () => {
        const a = await app({ noAddress: true, options: { key: 'global', limit: 1, window: '1m' } })
        expect(await statuses(a, 2)).toEqual([200, 429])
      })
    })

    describe('cost, skip, allow list, dry run', () => {
      it('cost: a number, or a function of the request', async () => {
        const a = await app({ options: { limit: 5, window: '1m', cost: 2 } })
        const first = await get(a)
        expect(first.headers['ratelimit-remaining']).toBe('3')
        expect((await get(a)).headers['ratelimit-remaining']).toBe('1')
        expect((await get(a)).status).toBe(429)

        const b = await app({
          options: {
            limit: 5,
            window: '1m',
            cost: (req: { headers: Record<string, string | undefined> }) =>
              Number(req.headers['x-cost'] ?? 1),
          },
        })
        expect((await get(b, '/', { 'X-Cost': '4' })).headers['ratelimit-remaining']).toBe('1')
        expect((await get(b, '/', { 'X-Cost': '2' })).status).toBe(429)
        expect((await get(b)).status).toBe(200)
      })

      it('skip: not counted, no headers', async () => {
        const a = await app({
          options: {
            limit: 1,
            window: '1m',
            skip: (req: { headers: Record<string, string | undefined> }) => req.headers['x-skip'] === '1',
          },
        })
        const skipped = await statuses(a, 3, '/', { 'X-Skip': '1' })
        expect(skipped).toEqual([200, 200, 200])
        expect((await get(a, '/', { 'X-Skip': '1' })).headers['ratelimit-limit']).toBeUndefined()
        expect(await statuses(a, 2)).toEqual([200, 429])
      })

      it('allow list: IPs and CIDRs, IPv4 and IPv6', async () => {
        const a = await app({
          trustProxy: true,
          options: { limit: 1, window: '1m', allowList: ['10.0.0.0/8', '2001:db8::/32', '192.0.2.7'] },
        })
        expect(await statuses(a, 3, '/', fwd('10.1.2.3'))).toEqual([200, 200, 200])
        expect(await statuses(a, 3, '/', fwd('::ffff:10.9.9.9'))).toEqual([200, 200, 200])
        expect(await statuses(a, 3, '/', fwd('2001:db8:5::1'))).toEqual([200, 200, 200])
        expect(await statuses(a, 3, '/', fwd('192.0.2.7'))).toEqual([200, 200, 200])
        expect(await statuses(a, 2, '/', fwd('192.0.2.8'))).toEqual([200, 429])
        expect(await statuses(a, 2, '/', fwd('2001:db9::1'))).toEqual([200, 429])
      })

      it('dry run: headers and onLimited, never a refusal', async () => {
        const limited: Outcome[] = []
        const a = await app({
          options: {
            limit: 1,
            window: '1m',
            dryRun: true,
            onLimited: (_req: unknown, o: Outcome) => limited.push(o),
          },
        })
        expect(await statuses(a, 3)).toEqual([200, 200, 200])
        expect(limited).toHaveLength(2)
        expect(limited[0]!.limited).toBe(true)
        const res = await get(a)
        expect(res.headers['ratelimit-remaining']).toBe('0')
        expect(res.headers['retry-after']).toBeUndefined()
      })
    })

    describe('refunds when the response finishes', () => {
      const routes: AdapterRoute[] = [
        { path: '/ok' },
        { path: '/fail', status: 500 },
        { path: '/missing', status: 404 },
      ]

      it('skipFailedRequests: responses >= 400 give back what they spent', async () => {
        const a = await app({ routes, options: { limit: 2, window: '1m', skipFailedRequests: true } })
        for (let i = 0; i < 4; i++) {
          expect((await get(a, i % 2 ? '/fail' : '/missing')).status).toBeGreaterThanOrEqual(400)
          await vi.waitFor(() => expect(store.refunds).toBe(i + 1))
        }
        expect(await statuses(a, 3, '/ok')).toEqual([200, 200, 429])
        expect(store.refunds).toBe(4)
      })

      it('skipSuccessfulRequests: responses < 400 give back what they spent', async () => {
        const a = await app({ routes, options: { limit: 2, window: '1m', skipSuccessfulRequests: true } })
        for (let i = 0; i < 3; i++) {
          expect((await get(a, '/ok')).status).toBe(200)
          await vi.waitFor(() => expect(store.refunds).toBe(i + 1))
        }
        expect(await statuses(a, 3, '/fail')).toEqual([500, 500, 429])
        expect(store.refunds).toBe(3)
      })
    })

    describe('shaping', () => {
      it('a shaping leaky bucket delays requests by delayMs, then refuses past capacity', async () => {
        const sleeps: number[] = []
        const a = await app({
          options: {
            algorithm: leakyBucket({ capacity: 3, leakRate: 1, interval: '1s', mode: 'shape' }),
            sleep: async (ms: number) => {
              sleeps.push(ms)
            },
          },
        })
        expect(await statuses(a, 3)).toEqual([200, 200, 200])
        expect(sleeps).toEqual([1000, 2000])
        const refused = await get(a)
        expect(refused.status).toBe(429)
        expect(refused.headers['retry-after']).toBe('1')
        expect(sleeps).toEqual([1000, 2000])
      })
    })

    describe('a store that is down', () => {
      const down = async (how: 'throw' | 'reject' | 'hang', extra: Record<string, unknown> = {}) => {
        const errors: unknown[] = []
        run++
        const built = await driver.createApp({
          options: {
            limit: 1,
            window: '1m',
            store: brokenStore(how),
            storeTimeout: 25,
            onError: (error: unknown) => errors.push(error),
            ...extra,
          },
        })
        apps.push(built)
        return { app: built, errors }
      }

      it.each(['throw', 'reject', 'hang'] as const)(
        'fails open by default when the store would %s',
        async (how) => {
          const { app: a, errors } = await down(how)
          const res = await get(a)
          expect(res.status).toBe(200)
          expect(res.headers['ratelimit-limit']).toBeUndefined()
          expect(errors).toHaveLength(1)
        },
      )

      it("failMode 'closed' answers 503", async () => {
        const { app: a, errors } = await down('reject', { failMode: 'closed' })
        const res = await get(a)
        expect(res.status).toBe(503)
        expect(res.body.error).toBe('rate_limiter_unavailable')
        expect(errors).toHaveLength(1)
      })

      it('a throwing onError hook does not break the request', async () => {
        const { app: a } = await down('throw', {
          onError: () => {
            throw new Error('hook broke')
          },
        })
        expect((await get(a)).status).toBe(200)
      })
    })
  })
}

/** Exported for drivers' own tests. */
export type { Decision }
