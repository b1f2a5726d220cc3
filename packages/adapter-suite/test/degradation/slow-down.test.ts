// slowDown in Express, Fastify and Koa over real HTTP, on virtual timers: a request waits out its delay
// before it reaches the route, and a client that disconnects while it waits stops waiting at once and never
// reaches it. Then two servers (an Express and a Fastify app) sharing one Redis share one count.

import { RedisStore } from '@floodgate/redis'
import { requireSharedRedis } from '@floodgate/test-harness'
import { virtualClock, virtualTimers } from '@floodgate/testing'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { drivers, expressDriver, fastifyDriver } from '../../src/drivers/index.js'
import { openApps, START } from '../../src/harness.js'
import { recordingTimers } from '../../src/scenarios/slow-down.js'
import { heldApps, send, until } from './http.js'

describe.each(drivers)('slowDown on $name', (driver) => {
  const apps = heldApps(driver)
  const { held } = apps
  const start = (options: Record<string, unknown>) => apps.start({ slowDown: options })

  it('a request past `after` waits out its delay before it reaches the route', async () => {
    const clock = virtualClock(START)
    const timers = virtualTimers(clock)
    const { base, gates } = await start({ after: 1, delay: '1s', clock: clock.now, timers })
    const first = send(base, { 'x-id': 'first' })
    await until(() => held.started.length === 1, 'the first request to reach the route')
    held.release()
    expect((await first.response).headers['floodgate-delay']).toBeUndefined()
    const second = send(base, { 'x-id': 'second' })
    await until(() => gates.slowDown.stats().waiting === 1, 'the second request to wait')
    timers.advance(999)
    expect(held.started).toEqual(['first'])
    timers.advance(1)
    await until(() => held.started.length === 2, 'the second request to reach the route')
    held.release()
    const answer = await second.response
    expect(answer.status).toBe(200)
    expect(answer.headers['floodgate-delay']).toBe('1000')
    expect(answer.body.slowDown).toEqual({ limit: 1, used: 2, remaining: 0, reset: 59, delay: 1000 })
  })

  it('a client that disconnects while it waits stops waiting at once and never reaches the route', async () => {
    const clock = virtualClock(START)
    const timers = virtualTimers(clock)
    const { base, gates } = await start({ after: 0, delay: '1s', clock: clock.now, timers })
    const leaver = send(base, { 'x-id': 'leaver' })
    await until(() => gates.slowDown.stats().waiting === 1, 'the leaver to wait')
    leaver.abort()
    await until(() => gates.slowDown.stats().waiting === 0, 'the leaver to stop waiting')
    expect(timers.pending).toBe(0)
    const next = send(base, { 'x-id': 'next' })
    await until(() => gates.slowDown.stats().waiting === 1, 'the next request to wait')
    timers.advance(2000) // the leaver was counted: the next one is the second, 2 s
    await until(() => held.started.length === 1, 'the next request to reach the route')
    held.release()
    expect((await next.response).body.slowDown).toMatchObject({ used: 2, delay: 2000 })
    expect(held.started).toEqual(['next'])
  })
})

describe('slowDown on a RedisStore shared by two servers', () => {
  const open = openApps()
  const clients: Redis[] = []
  const prefix = `fgtest:slow-down:${process.pid}:${Date.now().toString(36)}`
  afterAll(async () => {
    const keys = clients[0] ? await clients[0].keys(`${prefix}*`) : []
    if (keys.length > 0) await clients[0]!.del(...keys)
    await Promise.all(clients.map((client) => client.quit()))
  })

  it('counts a client once across an Express and a Fastify server, each with its own RedisStore', async () => {
    const { host, port } = await requireSharedRedis()
    const clock = virtualClock(START)
    const timers = recordingTimers()
    const server = async (driver: typeof expressDriver) => {
      const client = new Redis({ host, port, db: 9 })
      clients.push(client)
      const store = new RedisStore({ client, prefix })
      return open(
        await driver.createApp({
          degradation: { slowDown: { after: 2, delay: '1s', store, clock: clock.now, timers } },
        }),
      )
    }
    const a = await server(expressDriver)
    const b = await server(fastifyDriver)
    const used = []
    for (const app of [a, b, a, b, a]) used.push((await app.request({ path: '/' })).body.slowDown)
    expect(used.map((s) => [s.used, s.delay])).toEqual([
      [1, 0],
      [2, 0],
      [3, 1000],
      [4, 2000],
      [5, 3000],
    ])
    expect(timers.waits).toEqual([1000, 2000, 3000])
  })
})
