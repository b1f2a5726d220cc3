// A real Redis that stops answering, through every adapter: a redis-server this file starts, killed (a
// stopped Redis: connections refused) or frozen (SIGSTOP: connected, never answering, so every call runs into
// the limiter's storeTimeout), then brought back. One RedisStore, one app per failMode over it; the store only
// reports that it could not answer, and each app's failMode decides: 'open' lets the request through without
// rate-limit headers, 'closed' answers 503 with Retry-After and Cache-Control: no-store, { fallback } decides on
// the fallback store (its headers, its 429). Once Redis is back, every app is decided by Redis again.
import { fixedWindow, MemoryStore } from '@floodgate/core'
import { RedisStore } from '@floodgate/redis'
import { type RedisServer, startRedis, until } from '@floodgate/test-harness'
import { Redis } from 'ioredis'
import { afterEach, describe, expect, it } from 'vitest'
import { type AdapterApp, drivers, openApps } from '../../src/index.js'

const STORE_TIMEOUT = 300
const algorithm = fixedWindow({ limit: 2, window: '1h' })
const servers: RedisServer[] = []
const clients: Redis[] = []
afterEach(async () => {
  for (const client of clients.splice(0)) client.disconnect()
  for (const server of servers.splice(0)) await server.stop()
})

/** A redis-server of this file's own, a client that reconnects every 50 ms (its offline queue on), a store. */
async function redisUnderTest() {
  const server = await startRedis()
  servers.push(server)
  const client = new Redis({ port: server.port, host: '127.0.0.1', retryStrategy: () => 50 })
  client.on('error', () => {}) // connection errors are expected here
  clients.push(client)
  await new Promise((resolve) => client.once('ready', resolve))
  // cooldownMs short: once Redis is back, the circuit lets calls through again within the test.
  const store = new RedisStore({ client, prefix: `redis-down-${process.pid}`, cooldownMs: 50 })
  /** Until the store calls Redis again: its circuit closed and the client connected. */
  const back = () => until(() => !store.degraded && client.status === 'ready')
  return { server, store, back }
}

const modes = {
  open: () => 'open' as const,
  closed: () => 'closed' as const,
  fallback: () => ({ fallback: new MemoryStore() }),
}
type Mode = keyof typeof modes

describe.each(drivers)('$name, when Redis stops answering', (driver) => {
  const open = openApps()

  /** An app per failMode over `store`, each with its own prefix (its own keys). */
  async function appsOver(store: RedisStore): Promise<Record<Mode, AdapterApp>> {
    const apps = {} as Record<Mode, AdapterApp>
    for (const mode of Object.keys(modes) as Mode[]) {
      apps[mode] = open(
        await driver.createApp({
          options: {
            store,
            algorithm,
            prefix: `${driver.name}-${mode}-${Date.now()}`,
            failMode: modes[mode](),
            storeTimeout: STORE_TIMEOUT,
            onError: () => {},
          },
        }),
      )
    }
    return apps
  }

  /** What each failMode answers while Redis cannot: checked the same way, stopped or frozen. */
  async function expectFailModes(apps: Record<Mode, AdapterApp>) {
    const opened = await apps.open.request({ path: '/' })
    expect(opened.status).toBe(200)
    expect(opened.headers['ratelimit-limit']).toBeUndefined()

    const closed = await apps.closed.request({ path: '/' })
    expect(closed.status).toBe(503)
    expect(closed.headers['retry-after']).toBe('1')
    expect(closed.headers['cache-control']).toBe('no-store')
    expect(closed.body.error).toBe('rate_limiter_unavailable')

    // The fallback store decides: its headers, its quota (2), then its refusal.
    const fellBack = []
    for (let i = 0; i < 3; i++) fellBack.push(await apps.fallback.request({ path: '/' }))
    expect(fellBack.map((r) => r.status)).toEqual([200, 200, 429])
    expect(fellBack.map((r) => r.headers['ratelimit-remaining'])).toEqual(['1', '0', '0'])
    expect(fellBack[2]!.headers['retry-after']).toBeDefined()
  }

  /** Redis decides again: each app answers 200 with its headers (the second request of its key). */
  async function expectRedisAgain(apps: Record<Mode, AdapterApp>) {
    for (const mode of Object.keys(modes) as Mode[]) {
      const res = await apps[mode].request({ path: '/' })
      expect([mode, res.status, res.headers['ratelimit-limit']]).toEqual([mode, 200, '2'])
    }
  }

  it('stopped: open passes, closed answers 503, the fallback store decides; then Redis again', async () => {
    const { server, store, back } = await redisUnderTest()
    const apps = await appsOver(store)
    for (const mode of Object.keys(modes) as Mode[]) {
      expect((await apps[mode].request({ path: '/' })).headers['ratelimit-remaining']).toBe('1')
    }
    await server.kill('SIGKILL')
    await expectFailModes(apps)
    await server.restart()
    await back()
    // A restarted Redis without persistence forgot the first requests: each key starts again.
    await expectRedisAgain(apps)
  }, 60_000)

  it('frozen: every call runs into storeTimeout, and each failMode answers as when stopped; then Redis again', async () => {
    const { server, store, back } = await redisUnderTest()
    const apps = await appsOver(store)
    expect(store.timeoutMs).toBe(STORE_TIMEOUT) // the limiters gave the store their storeTimeout
    server.pause()
    try {
      await expectFailModes(apps)
    } finally {
      server.resume()
    }
    await back()
    await expectRedisAgain(apps)
  }, 60_000)
})
