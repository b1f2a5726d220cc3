// loadShedder in Express, Fastify and Koa over real HTTP: a share of maxInFlight kept for critical
// requests, 503 with Retry-After, the event-loop signal (injected) shedding the lowest class, and a client
// that goes away giving its place back.
import { describe, expect, it } from 'vitest'
import { drivers } from '../../src/drivers/index.js'
import { heldApps, send, until } from './http.js'

const byClass = (req: { headers: Record<string, unknown> }) => req.headers['x-class'] as string

describe.each(drivers)('loadShedder on $name', (driver) => {
  const apps = heldApps(driver)
  const { held } = apps
  const start = (options: Record<string, unknown>) => apps.start({ loadShedder: options })

  it('keeps the reserve for critical requests and sheds the others with 503 and Retry-After', async () => {
    const { base, gates } = await start({ maxInFlight: 2, reserve: { critical: 0.5 }, priority: byClass })
    const normal = send(base, { 'x-class': 'normal', 'x-id': 'n1' })
    await until(() => held.started.length === 1)
    const shed = await send(base, { 'x-class': 'normal', 'x-id': 'n2' }).response
    expect(shed.status).toBe(503)
    expect(shed.headers['retry-after']).toBe('1')
    expect(shed.headers['cache-control']).toBe('no-store')
    expect(shed.body).toMatchObject({ error: 'shed', priority: 'normal', retryAfter: 1 })
    const critical = send(base, { 'x-class': 'critical', 'x-id': 'c1' })
    await until(() => held.started.length === 2)
    expect((await send(base, { 'x-class': 'critical', 'x-id': 'c2' }).response).status).toBe(503)
    held.releaseAll()
    expect((await normal.response).status).toBe(200)
    expect((await critical.response).status).toBe(200)
    expect(held.started).toEqual(['n1', 'c1'])
    await until(() => gates.loadShedder.stats().inFlight === 0, 'every place to be given back')
  })

  it('sheds the lowest class first while the event loop is slow, with problem+json', async () => {
    const { base } = await start({
      maxEventLoopDelay: '100ms',
      overload: { delayMs: () => 250, close() {} },
      priority: byClass,
      format: 'problem+json',
    })
    const shed = await send(base, { 'x-class': 'sheddable' }).response
    expect(shed.status).toBe(503)
    expect(shed.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(shed.body).toMatchObject({
      type: 'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity',
      status: 503,
      priority: 'sheddable',
    })
    const normal = send(base, { 'x-class': 'normal' })
    await until(() => held.started.length === 1)
    held.releaseAll()
    expect((await normal.response).status).toBe(200)
  })

  it('a client that goes away gives its place back', async () => {
    const { base, gates } = await start({ maxInFlight: 1, priority: byClass })
    const leaver = send(base, { 'x-class': 'normal', 'x-id': 'leaver' })
    await until(() => held.started.length === 1)
    leaver.abort()
    await until(() => gates.loadShedder.stats().inFlight === 0, 'the place to be given back')
    const next = send(base, { 'x-class': 'normal', 'x-id': 'next' })
    await until(() => held.started.length === 2)
    held.releaseAll()
    expect((await next.response).status).toBe(200)
  })
})
