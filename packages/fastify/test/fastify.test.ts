import { fixedWindow, RateLimitConfigError } from '@floodgate/core'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { rateLimit } from '../src/index.js'

const hello = async () => ({ hello: 'world' })

describe('@floodgate/fastify', () => {
  it('register with no options: 100 a minute per IP, draft-6 headers; request.rateLimit says what is left', async () => {
    const app = Fastify()
    await app.register(rateLimit)
    app.get('/', async (request) => ({ remaining: request.rateLimit?.remaining }))
    const res = await app.inject('/')
    expect(res.headers['ratelimit-limit']).toBe('100')
    expect(res.headers['ratelimit-policy']).toBe('100;w=60')
    expect(res.json()).toEqual({ remaining: 99 })
    await app.close()
  })

  it('request.rateLimit is what the app reads: the limit, remaining, reset and policy, and no plumbing', async () => {
    const app = Fastify()
    await app.register(rateLimit, { algorithm: fixedWindow({ limit: 5, window: '1m' }), clock: () => 0 })
    app.get('/', async (request) => {
      const read = request.rateLimit
      return { read: { ...read }, keys: Object.keys(read ?? {}), policies: read?.policies }
    })
    const body = (await app.inject('/')).json()
    expect(body.keys).toEqual(['limit', 'remaining', 'reset', 'policy', 'plan', 'limited'])
    expect(body.read).toEqual({ limit: 5, remaining: 4, reset: 60, policy: 'ip', limited: false })
    expect(body.policies).toEqual([{ limit: 5, remaining: 4, reset: 60, policy: 'ip' }])
    await app.close()
  })

  it('config.rateLimit sets a route its own limit over the plugin options, or false for none', async () => {
    const app = Fastify()
    await app.register(rateLimit, { limit: 5, window: '1m', headers: 'draft-7' })
    app.get('/', hello)
    app.get('/strict', { config: { rateLimit: { limit: 1, window: '1m' } } }, hello)
    app.get('/open', { config: { rateLimit: false } }, hello)
    expect((await app.inject('/strict')).headers.ratelimit).toMatch(/^limit=1, remaining=0, reset=\d+$/)
    expect((await app.inject('/strict')).statusCode).toBe(429)
    expect((await app.inject('/')).headers.ratelimit).toMatch(/^limit=5, remaining=4/)
    const open = await app.inject('/open')
    expect(open.statusCode).toBe(200)
    expect(open.headers.ratelimit).toBeUndefined()
    await app.close()
  })

  it('route limits count per route unless routes share a prefix (a route group)', async () => {
    const app = Fastify()
    await app.register(rateLimit, { global: false })
    const own = { rateLimit: { limit: 1, window: '1m' as const } }
    const group = { rateLimit: { limit: 1, window: '1m' as const, prefix: 'exports' } }
    app.get('/a', { config: own }, hello)
    app.get('/b', { config: own }, hello)
    app.get('/g1', { config: group }, hello)
    app.get('/g2', { config: group }, hello)
    app.get('/none', hello)
    expect((await app.inject('/a')).statusCode).toBe(200)
    expect((await app.inject('/b')).statusCode).toBe(200)
    expect((await app.inject('/g1')).statusCode).toBe(200)
    expect((await app.inject('/g2')).statusCode).toBe(429)
    expect((await app.inject('/none')).headers['ratelimit-limit']).toBeUndefined()
    await app.close()
  })

  it("'endpoint' uses request.routeOptions.url, even from the plugin-wide hook", async () => {
    const app = Fastify()
    await app.register(rateLimit, { key: 'endpoint', limit: 2, window: '1m' })
    app.get('/items/:id', hello)
    expect((await app.inject('/items/1')).statusCode).toBe(200)
    expect((await app.inject('/items/2')).statusCode).toBe(200)
    const refused = await app.inject('/items/3')
    expect(refused.statusCode).toBe(429)
    expect(refused.json().policy).toBe('endpoint')
    await app.close()
  })

  it('a decorator for manual checks, registered once even when the plugin is registered twice', async () => {
    const app = Fastify()
    await app.register(rateLimit, { global: false })
    await app.register(rateLimit, { global: false })
    expect(app.hasDecorator('rateLimit')).toBe(true)
    app.get('/manual', { onRequest: app.rateLimit({ limit: 1, window: '1m' }) }, hello)
    expect((await app.inject('/manual')).statusCode).toBe(200)
    const refused = await app.inject('/manual')
    expect(refused.statusCode).toBe(429)
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    await app.close()
  })

  it("the hook app.rateLimit() returns carries its limiter's controls: usage with plans, unban, overrides", async () => {
    const app = Fastify()
    await app.register(rateLimit, { global: false })
    const plain = app.rateLimit({ limit: 1, window: '1m' })
    expect(plain.usage).toBeUndefined()
    expect(plain.unban).toBeTypeOf('function')
    expect(plain.overrides.list).toBeTypeOf('function')
    const planned = app.rateLimit({
      apiKey: (request) => request.headers['x-api-key'] as string | undefined,
      plans: { free: { rate: 1, burst: 5, quota: { limit: 10, period: 'day' } } },
      planOf: () => 'free',
    })
    app.get('/planned', { onRequest: planned }, hello)
    const sent = await app.inject({ url: '/planned', headers: { 'x-api-key': 'key-1' } })
    expect(sent.statusCode).toBe(200)
    expect(await planned.usage!.usage('key-1')).toMatchObject({ plan: 'free', quota: { limit: 10, used: 1 } })
    await app.close()
  })

  it('invalid options fail at registration, naming the option', async () => {
    const app = Fastify()
    await expect(app.register(rateLimit, { limit: 0 })).rejects.toThrow(RateLimitConfigError)
    const other = Fastify()
    await other.register(rateLimit)
    expect(() => other.get('/', { config: { rateLimit: { window: 'soon' as never } } }, hello)).toThrow(
      /rateLimit\.window/,
    )
  })

  it('on the MemoryStore the request goes on in the same tick; behind an async key function, after it', async () => {
    for (const [options, expected] of [
      [{ limit: 5, window: '1m' }, 'true'],
      [{ limit: 5, window: '1m', key: async () => 'k' }, 'false'],
    ] as const) {
      const app = Fastify()
      await app.register(rateLimit, { global: false })
      const limiter = app.rateLimit(options)
      app.addHook('onRequest', (request, reply, done) => {
        let sameTick = true
        limiter.call(app, request, reply, (error?: Error) => {
          reply.header('x-same-tick', String(sameTick))
          done(error)
        })
        sameTick = false
      })
      app.get('/', async () => 'ok')
      const res = await app.inject('/')
      expect(res.statusCode).toBe(200)
      expect(res.headers['x-same-tick']).toBe(expected)
      expect(res.headers['ratelimit-remaining']).toBe('4')
      await app.close()
    }
  })

  it("a route's own limit counts HEAD (Fastify's automatic HEAD route runs the GET handler) in the GET bucket", async () => {
    const app = Fastify()
    await app.register(rateLimit, { limit: 100, window: '1m' })
    let runs = 0
    app.get('/report', { config: { rateLimit: { limit: 2, window: '1m' } } }, async () => {
      runs++
      return 'expensive'
    })
    const statuses = []
    for (const method of ['HEAD', 'HEAD', 'GET', 'GET'] as const) {
      statuses.push((await app.inject({ method, url: '/report' })).statusCode)
    }
    expect(statuses).toEqual([200, 200, 429, 429])
    expect(runs).toBe(2)
    await app.close()
  })
})
