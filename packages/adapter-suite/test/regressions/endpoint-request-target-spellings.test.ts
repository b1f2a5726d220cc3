// Regression: on Express, an absolute-form request target (`GET http://a.example/users/2`) reached the route
// `/users/:id`, but the route lookup did not parse it and counted it under "(no route)": after `GET /users/1`
// used up `limit: 1`, `http://a.example/users/2`, `http://b.example:8080/users/2` and
// `https://a.example/users/2?x=1` each got 200. Every spelling of a target that reaches a route now counts in
// that route's bucket, on every adapter and major, and targets that reach no route share one bucket, however
// many distinct ones a client sends.
import { request as httpRequest } from 'node:http'
import { MemoryStore, type Store } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { type AdapterApp, drivers, openApps, recordingStore } from '../../src/index.js'

/** Send `target` as the request target itself (absolute form included), over a real socket. */
function send(app: AdapterApp, target: string): Promise<{ status: number; body: string }> {
  return app.listen().then(
    (base) =>
      new Promise((resolve, reject) => {
        const { hostname, port } = new URL(base)
        const req = httpRequest({ host: hostname, port, path: target, agent: false }, (res) => {
          let body = ''
          res.setEncoding('utf8')
          res.on('data', (chunk) => {
            body += chunk
          })
          res.on('end', () => resolve({ status: res.statusCode!, body }))
        })
        req.on('error', reject)
        req.end()
      }),
  )
}

const ABSOLUTE = [
  'http://a.example/users/2',
  'http://b.example:8080/users/2',
  'https://a.example/users/2?x=1',
]

/** Other spellings: each framework routes some of them to `/users/:id` and some nowhere. */
const SPELLINGS = [
  '/users/2?x=1',
  '/users/2?',
  '/users/2#top',
  '/users/%32',
  '/users/2/',
  '/USERS/2',
  '/users/2;v=1',
  '//users/2',
  '/users/2/../2',
  '/users/./2',
  '/users/%E0%A4%A',
  `/users/${'9'.repeat(4000)}`,
  'http://a.example//users/2',
  'http://a.example/USERS/2?x=1#y',
  'http://a.example',
  '*',
]

describe.each(drivers)('$name', (driver) => {
  const open = openApps()
  const app = async (store: Store, limit = 1) =>
    open(
      await driver.createApp({
        options: { key: 'endpoint', limit, window: '1m', store },
        routes: [{ path: '/users/:id' }],
      }),
    )

  it.each(ABSOLUTE)('%s counts in the bucket of /users/:id', async (target) => {
    const a = await app(new MemoryStore())
    expect((await send(a, '/users/1')).status).toBe(200)
    expect((await send(a, target)).status).toBe(429)
  })

  it.each(ABSOLUTE)('%s reaches /users/:id', async (target) => {
    const a = await app(new MemoryStore())
    expect(await send(a, target)).toEqual({ status: 200, body: '{"ok":true}' })
  })

  it.each(SPELLINGS.map((target) => ({ target, label: target.slice(0, 40) })))(
    '$label counts in the route’s bucket exactly when it reaches the route',
    async ({ target }) => {
      const a = await app(new MemoryStore())
      const first = await send(a, target)
      const reached = first.status === 200 && first.body === '{"ok":true}'
      expect((await send(a, '/users/1')).status).toBe(reached ? 429 : 200)
    },
  )

  it('targets that reach no route share one bucket: distinct ones make no new keys', async () => {
    const store = recordingStore()
    const a = await app(store, 1000)
    for (let i = 0; i < 20; i++) {
      await send(a, `/nowhere/${i}`)
      await send(a, `http://h${i}.example/nowhere/${'x'.repeat(i * 100)}`)
      await send(a, `/users/${i}`)
      await send(a, `http://h${i}.example/users/${i}?q=${i}`)
    }
    // One key for /users/:id, and one for the targets that reach no route (Fastify's app-wide limiter runs on
    // routes only: it counts none of those).
    expect(new Set(store.keys).size).toBe(driver.framework === 'fastify' ? 1 : 2)
  })
})
