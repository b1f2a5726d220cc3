// Regression: endpoint keys held real paths or merged endpoints. Under an Express router mounted at
// /orgs/:org, `req.baseUrl` put the org id into the key (`GET /orgs/acme/posts/:postId`); under Koa's
// `router.use()` the key was the use-layer's regex (`GET /api(?:\/|$)`); before routing, on Express and Koa,
// every route of a method was one bucket (`GET *`). The key is now the full route pattern in every case, and the
// same on every major: Express 4 keeps no mount path but a regular expression, read back into the pattern; Koa
// before routing finds the app's @koa/router middlewares, or the routers given as `router`.
import type { Store } from '@floodgate/core'
import { forgetRaisedWarnings } from '@floodgate/core/internal'
import { rateLimit as expressRateLimit } from '@floodgate/express'
import { rateLimit as fastifyRateLimit } from '@floodgate/fastify'
import { rateLimit as koaRateLimit } from '@floodgate/koa'
import Router from '@koa/router'
import express from 'express'
import express4 from 'express4'
import Fastify from 'fastify'
import Koa from 'koa'
import Koa2 from 'koa2'
import request from 'supertest'
import { describe, expect, it, vi } from 'vitest'
import { endpointsOf, recordingStore } from '../../src/index.js'

const limit = (store: Store) => ({ key: 'endpoint' as const, limit: 2, window: '1m' as const, store })
const PATHS = ['/orgs/acme/posts/1', '/orgs/globex/posts/2', '/orgs/initech/posts/3', '/other/9']
const EXPECTED = [
  'GET /orgs/:org/posts/:postId',
  'GET /orgs/:org/posts/:postId',
  'GET /orgs/:org/posts/:postId',
  'GET /other/:id',
]
const STATUSES = [200, 200, 429, 200]

describe.each([
  { name: 'express', express },
  { name: 'express4', express: express4 },
])('$name', ({ express }) => {
  const ok = (_req: express.Request, res: express.Response) => void res.json({ ok: true })

  it('a route limiter under a router mounted at a pattern keys by the full pattern', async () => {
    const store = recordingStore()
    const posts = express.Router({ mergeParams: true })
    posts.get('/posts/:postId', expressRateLimit(limit(store)), ok)
    const app = express()
    app.use('/orgs/:org', posts)
    app.get('/other/:id', expressRateLimit(limit(store)), ok)
    const statuses = []
    for (const path of PATHS) statuses.push((await request(app).get(path)).status)
    expect(endpointsOf(store.keys)).toEqual(EXPECTED)
    expect(statuses).toEqual(STATUSES)
  })

  it('an app-wide limiter finds the route that will match, through nested routers', async () => {
    const store = recordingStore()
    const posts = express.Router({ mergeParams: true })
    posts.get('/posts/:postId', ok)
    const app = express()
    app.use(expressRateLimit(limit(store)))
    app.use('/orgs/:org', posts)
    app.get('/other/:id', ok)
    const statuses = []
    for (const path of [...PATHS, '/nowhere']) statuses.push((await request(app).get(path)).status)
    expect(endpointsOf(store.keys)).toEqual([...EXPECTED, 'GET (no route)'])
    expect(statuses).toEqual([...STATUSES, 404])
  })

  it('mount paths of every shape key as the pattern was written, whatever the case of the request', async () => {
    const store = recordingStore()
    const inner = express.Router()
    inner.get('/:file', ok)
    const deep = express.Router({ mergeParams: true })
    deep.get('/items/:item', ok)
    const app = express()
    app.use(expressRateLimit({ ...limit(store), limit: 100 }))
    app.use('/api/v1.2/files', inner)
    app.use('/Teams/:team/', deep)
    for (const path of [
      '/api/v1.2/files/a.txt',
      '/API/V1.2/FILES/b.txt',
      '/teams/t1/items/9',
      '/TEAMS/t2/items/8/',
    ])
      expect((await request(app).get(path)).status).toBe(200)
    expect(endpointsOf(store.keys)).toEqual([
      'GET /api/v1.2/files/:file',
      'GET /api/v1.2/files/:file',
      'GET /Teams/:team/items/:item',
      'GET /Teams/:team/items/:item',
    ])
  })
})

describe.each([
  { name: 'koa', Koa },
  { name: 'koa2', Koa: Koa2 },
])('$name', ({ Koa }) => {
  const respond = (ctx: Koa.Context) => {
    ctx.body = { ok: true }
  }

  it('a limiter in router.use() keys by the route, not the use-layer’s prefix', async () => {
    const store = recordingStore()
    const router = new Router()
    const orgs = new Router({ prefix: '/orgs/:org' })
    orgs.use(koaRateLimit(limit(store)))
    orgs.get('/posts/:postId', respond)
    router.get('/other/:id', koaRateLimit(limit(store)), respond)
    const app = new Koa().use(orgs.routes()).use(router.routes())
    const statuses = []
    for (const path of PATHS) statuses.push((await request(app.callback()).get(path)).status)
    expect(endpointsOf(store.keys)).toEqual(EXPECTED)
    expect(statuses).toEqual(STATUSES)
  })

  it.each([
    { how: 'given the routers as `router`', given: true },
    { how: 'finding the app’s own @koa/router middlewares, mounted after it', given: false },
  ])('an app-wide limiter $how keys by the route they will match', async ({ given }) => {
    const store = recordingStore()
    const orgs = new Router({ prefix: '/orgs/:org' })
    orgs.get('/posts/:postId', respond)
    const other = new Router()
    other.get('/other/:id', respond)
    const app = new Koa()
    app.use(koaRateLimit(given ? { ...limit(store), router: [orgs, other] } : limit(store)))
    app.use(orgs.routes()).use(orgs.allowedMethods()).use(other.routes())
    const statuses = []
    for (const path of [...PATHS, '/nowhere']) statuses.push((await request(app.callback()).get(path)).status)
    expect(endpointsOf(store.keys)).toEqual([...EXPECTED, 'GET (no route)'])
    expect(statuses).toEqual([...STATUSES, 404])
  })

  it('with no router to find, an app-wide limiter counts per method and warns once', async () => {
    forgetRaisedWarnings()
    const warned: string[] = []
    const spy = vi.spyOn(process, 'emitWarning').mockImplementation(((_: string, o: { code: string }) => {
      warned.push(o.code)
    }) as never)
    try {
      const store = recordingStore()
      const app = new Koa()
      app.use(koaRateLimit(limit(store)))
      app.use(respond) // routes of its own, with no @koa/router
      const statuses = []
      for (const path of PATHS) statuses.push((await request(app.callback()).get(path)).status)
      expect(endpointsOf(store.keys)).toEqual(Array(4).fill('GET *'))
      expect(statuses).toEqual([200, 200, 429, 429])
      expect(warned).toEqual(['ERR_FLOODGATE_ENDPOINT_UNKNOWN'])
    } finally {
      spy.mockRestore()
    }
  })
})

describe('fastify', () => {
  it('routes under a prefix, app-wide: one bucket per route pattern', async () => {
    const store = recordingStore()
    const app = Fastify()
    await app.register(fastifyRateLimit, limit(store))
    await app.register(
      async (orgs) => {
        orgs.get('/posts/:postId', async () => ({ ok: true }))
      },
      { prefix: '/orgs/:org' },
    )
    app.get('/other/:id', async () => ({ ok: true }))
    const statuses = []
    for (const path of PATHS) statuses.push((await app.inject({ url: path })).statusCode)
    expect(endpointsOf(store.keys)).toEqual(EXPECTED)
    expect(statuses).toEqual(STATUSES)
    await app.close()
  })
})
