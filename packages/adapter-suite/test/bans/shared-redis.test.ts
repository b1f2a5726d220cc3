// Bans across servers: an Express, a Fastify and a Koa app, each with its own RedisStore on one Redis, see one
// count of refusals and one ban, and an unban made through any of them lifts it on all.

import { RedisStore } from '@floodgate/redis'
import { requireSharedRedis } from '@floodgate/test-harness'
import { virtualClock } from '@floodgate/testing'
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import { expressDriver, fastifyDriver, koaDriver } from '../../src/drivers/index.js'
import { openApps, START } from '../../src/harness.js'

describe('bans on a RedisStore shared by three servers', () => {
  const open = openApps()
  const clients: Redis[] = []
  const prefix = `fgtest:bans:${process.pid}:${Date.now().toString(36)}`
  afterAll(async () => {
    const keys = clients[0] ? await clients[0].keys(`${prefix}*`) : []
    if (keys.length > 0) await clients[0]!.del(...keys)
    await Promise.all(clients.map((client) => client.quit()))
  })

  it('one count of refusals, one ban seen by every server, onBanned once, one unban for all', async () => {
    const { host, port } = await requireSharedRedis()
    const clock = virtualClock(START)
    const banned: string[] = []
    const server = async (driver: typeof expressDriver) => {
      const client = new Redis({ host, port, db: 9 })
      clients.push(client)
      const store = new RedisStore({ client, prefix })
      return open(
        await driver.createApp({
          trustProxy: true,
          options: {
            store,
            clock: clock.now,
            limit: 1,
            window: '1h',
            ban: { after: 2, within: '1m', for: '1h' },
            onBanned: () => banned.push(driver.name),
          },
        }),
      )
    }
    const [a, b, c] = [await server(expressDriver), await server(fastifyDriver), await server(koaDriver)]
    const from = { 'X-Forwarded-For': '192.0.2.44' }
    const status = async (app: typeof a) => (await app.request({ path: '/', headers: from })).status
    expect(await status(a)).toBe(200)
    expect(await status(b)).toBe(429)
    expect(await status(c)).toBe(403) // the second refusal, on a third server: banned everywhere
    expect(await status(a)).toBe(403)
    expect(await status(b)).toBe(403)
    expect(banned).toEqual(['koa'])
    await b.unban!('192.0.2.44')
    expect(await status(c)).toBe(429) // lifted on every server; the quota is still spent
    expect(await status(a)).toBe(403)
    expect(banned).toEqual(['koa', 'express'])
    // Another client was never banned.
    expect((await c.request({ path: '/', headers: { 'X-Forwarded-For': '192.0.2.45' } })).status).toBe(200)
  })
})
