import { fixedWindow, RateLimitConfigError } from '@floodgate/core'
import Router from '@koa/router'
import Koa from 'koa'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { rateLimit } from '../src/index.js'

describe('@floodgate/koa', () => {
  it('app.use(rateLimit()): 100 a minute per IP, draft-6 headers; ctx.state.rateLimit says what is left', async () => {
    const app = new Koa()
    app.use(rateLimit())
    app.use((ctx) => {
      ctx.body = { remaining: ctx.state.rateLimit?.remaining }
    })
    const res = await request(app.callback()).get('/')
    expect(res.headers['ratelimit-limit']).toBe('100')
    expect(res.headers['ratelimit-policy']).toBe('100;w=60')
    expect(res.body.remaining).toBe(99)
  })

  it('ctx.state.rateLimit is what the app reads: the limit, remaining, reset and policy, and no plumbing', async () => {
    const app = new Koa()
    app.use(rateLimit({ algorithm: fixedWindow({ limit: 5, window: '1m' }), clock: () => 0 }))
    app.use((ctx) => {
      const read = ctx.state.rateLimit
      ctx.body = { read, keys: Object.keys(read ?? {}), policies: read?.policies }
    })
    const { body } = await request(app.callback()).get('/')
    expect(body.keys).toEqual(['limit', 'remaining', 'reset', 'policy', 'plan', 'limited'])
    expect(body.read).toEqual({ limit: 5, remaining: 4, reset: 60, policy: 'ip', limited: false })
    expect(body.policies).toEqual([{ limit: 5, remaining: 4, reset: 60, policy: 'ip' }])
  })

  it('on a @koa/router route, with the router prefix in the pattern', async () => {
    const routes: (string | null | undefined)[] = []
    const router = new Router({ prefix: '/api' })
    router.get(
      '/users/:id',
      rateLimit({
        key: ['endpoint', (_ctx, info) => void routes.push(info.route)],
        limit: 1,
        window: '1m',
      }),
      (ctx) => {
        ctx.body = { ok: true }
      },
    )
    router.get('/free', (ctx) => {
      ctx.body = { ok: true }
    })
    const app = new Koa()
    app.use(router.routes())
    const server = app.callback()
    expect((await request(server).get('/api/users/1')).status).toBe(200)
    expect((await request(server).get('/api/users/2')).status).toBe(429)
    expect((await request(server).get('/api/free')).headers['ratelimit-limit']).toBeUndefined()
    expect(routes).toEqual(['/api/users/:id', '/api/users/:id'])
  })

  it('a 429 body is JSON and the downstream middleware never runs', async () => {
    let reached = 0
    const app = new Koa()
    app.use(rateLimit({ limit: 1, window: '1m' }))
    app.use((ctx) => {
      reached++
      ctx.body = 'ok'
    })
    await request(app.callback()).get('/')
    const res = await request(app.callback()).get('/')
    expect(res.status).toBe(429)
    expect(res.headers['content-type']).toMatch(/^application\/json/)
    expect(res.body.error).toBe('rate_limited')
    expect(reached).toBe(1)
  })

  it('invalid options throw when the middleware is created', () => {
    expect(() => rateLimit({ limit: -1 })).toThrow(RateLimitConfigError)
  })

  it('on the MemoryStore the request goes on in the same tick; behind an async key function, after it', async () => {
    for (const [options, expected] of [
      [{ limit: 5, window: '1m' }, 'true'],
      [{ limit: 5, window: '1m', key: async () => 'k' }, 'false'],
    ] as const) {
      const limiter = rateLimit(options)
      const app = new Koa()
      app.use((ctx, next) => {
        let sameTick = true
        const done = limiter(ctx, () => {
          ctx.set('x-same-tick', String(sameTick))
          return next()
        })
        sameTick = false
        return done
      })
      app.use((ctx) => {
        ctx.body = 'ok'
      })
      const res = await request(app.callback()).get('/')
      expect(res.status).toBe(200)
      expect(res.headers['x-same-tick']).toBe(expected)
      expect(res.headers['ratelimit-remaining']).toBe('4')
    }
  })
})
