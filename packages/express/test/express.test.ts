import { fixedWindow, RateLimitConfigError } from '@floodgate/core'
import express from 'express'
import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { rateLimit } from '../src/index.js'

const ok = (_req: express.Request, res: express.Response) => {
  res.json({ ok: true, remaining: _req.rateLimit?.remaining })
}

describe('@floodgate/express', () => {
  it('app.use(rateLimit()): 100 a minute per IP, draft-6 headers; req.rateLimit says what is left', async () => {
    const app = express()
    app.use(rateLimit())
    app.get('/', ok)
    const res = await request(app).get('/')
    expect(res.status).toBe(200)
    expect(res.headers['ratelimit-limit']).toBe('100')
    expect(res.headers['ratelimit-remaining']).toBe('99')
    expect(res.headers['ratelimit-policy']).toBe('100;w=60')
    expect(res.body.remaining).toBe(99)
  })

  it('req.rateLimit is what the app reads: the limit, remaining, reset and policy, and no plumbing', async () => {
    const app = express()
    app.use(rateLimit({ algorithm: fixedWindow({ limit: 5, window: '1m' }), clock: () => 0 }))
    app.get('/', (req, res) => {
      res.json({
        read: req.rateLimit,
        keys: Object.keys(req.rateLimit ?? {}),
        policies: req.rateLimit?.policies,
      })
    })
    const { body } = await request(app).get('/')
    expect(body.keys).toEqual(['limit', 'remaining', 'reset', 'policy', 'plan', 'limited'])
    expect(body.read).toEqual({ limit: 5, remaining: 4, reset: 60, policy: 'ip', limited: false })
    expect(body.policies).toEqual([{ limit: 5, remaining: 4, reset: 60, policy: 'ip' }])
  })

  it('app.use(rateLimit({ limit, window }))', async () => {
    const app = express()
    app.use(rateLimit({ limit: 2, window: '1m' }))
    app.get('/', ok)
    const codes = [(await request(app).get('/')).status, (await request(app).get('/')).status]
    codes.push((await request(app).get('/')).status)
    expect(codes).toEqual([200, 200, 429])
  })

  it('on a router: only its routes are limited, and the route pattern includes the mount path', async () => {
    const routes: (string | null | undefined)[] = []
    const api = express.Router()
    api.get(
      '/users/:id',
      rateLimit({
        limit: 1,
        window: '1m',
        key: (_req, info) => {
          routes.push(info.route)
          return info.route
        },
      }),
      ok,
    )
    const app = express()
    app.use('/api', api)
    app.get('/other', ok)
    expect((await request(app).get('/api/users/1')).status).toBe(200)
    expect((await request(app).get('/api/users/2')).status).toBe(429)
    expect((await request(app).get('/other')).headers['ratelimit-limit']).toBeUndefined()
    expect(routes).toEqual(['/api/users/:id', '/api/users/:id'])
  })

  it("router.use(rateLimit()) limits that router's requests only", async () => {
    const api = express.Router()
    api.use(rateLimit({ limit: 1, window: '1m' }))
    api.get('/a', ok)
    const app = express()
    app.use('/api', api)
    app.get('/b', ok)
    expect((await request(app).get('/api/a')).status).toBe(200)
    expect((await request(app).get('/api/a')).status).toBe(429)
    expect((await request(app).get('/b')).status).toBe(200)
  })

  it('one instance on several routes is one counter (a route group); two instances are two', async () => {
    const group = rateLimit({ limit: 2, window: '1m' })
    const app = express()
    app.get('/a', group, ok)
    app.get('/b', group, ok)
    app.get('/c', rateLimit({ limit: 2, window: '1m' }), ok)
    expect((await request(app).get('/a')).status).toBe(200)
    expect((await request(app).get('/b')).status).toBe(200)
    expect((await request(app).get('/a')).status).toBe(429)
    expect((await request(app).get('/c')).status).toBe(200)
  })

  it("before routing, 'endpoint' is every request of a method together (never the raw path)", async () => {
    const app = express()
    app.use(rateLimit({ key: 'endpoint', limit: 2, window: '1m' }))
    app.get('/x/:id', ok)
    expect((await request(app).get('/x/1')).status).toBe(200)
    expect((await request(app).get('/x/2')).status).toBe(200)
    expect((await request(app).get('/x/3')).status).toBe(429)
    expect((await request(app).post('/x/3')).status).toBe(404) // POST is another endpoint: not refused
  })

  it('invalid options throw when the middleware is created', () => {
    expect(() => rateLimit({ window: '1 parsec' as never })).toThrow(RateLimitConfigError)
    expect(() => rateLimit({ windowMs: 60_000 } as never)).toThrow(/rateLimit\.windowMs/)
  })

  it('code an earlier middleware runs after its next() runs before the route answers, on every store', async () => {
    for (const options of [
      { limit: 5, window: '1m' },
      { limit: 5, window: '1m', key: async () => 'k' },
    ] as const) {
      const errors: unknown[] = []
      const app = express()
      app.use((_req, res, next) => {
        next()
        res.setHeader('x-served-by', 'node-1') // after next(): the route has not answered yet
      })
      app.use(rateLimit(options))
      app.get('/', ok)
      app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
        errors.push(error)
        res.status(500).end()
      })
      const res = await request(app).get('/')
      expect(res.status).toBe(200)
      expect(res.headers['x-served-by']).toBe('node-1')
      expect(res.headers['ratelimit-remaining']).toBe('4')
      expect(errors).toEqual([])
    }
  })
})
