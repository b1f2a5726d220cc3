import { fixedWindow, MemoryStore } from '@floodgate/core'
import {
  expectOperationsFallBack,
  FAIL_MODES,
  freePort,
  type RedisServer,
  startRedis,
  watchUnhandled,
} from '@floodgate/test-harness'
import { afterEach, describe, expect, it } from 'vitest'
import { type RedisClient, RedisStore } from '../src/index.js'
import { algorithm, expectBoundedAndHonoured, load, stores, TIMEOUT_MS } from './failure-load.js'
import { CLIENT_NAMES, type ClientName, openClient, type TestClient } from './helpers.js'

// Real failures of a real redis-server this file starts: killed mid-load and restarted on the same port,
// frozen (SIGSTOP: connected but silent), absent at start. Assertions count outcomes; the only clock read is
// each request's own latency, and the count of requests that took longer than timeoutMs + slack must be 0.
// Every test runs with each client the store takes (ioredis, node-redis), both left at their default offline
// queue (on), which is what the store's timeout and circuit must bound.
const unhandled = watchUnhandled()

const clients: TestClient[] = []
const servers: RedisServer[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close()
  for (const s of servers.splice(0)) await s.stop()
})

/**
 * A client of `name` that reconnects every 50 ms and ignores connection errors (expected here), still
 * connecting when it is returned.
 */
function client(name: ClientName, port: number, offlineQueue = true): RedisClient {
  const opened = openClient(name, { port }, { reconnect: true, offlineQueue })
  clients.push(opened)
  return opened.client
}

/** The same, once connected: decisions before the failure must all come from Redis. */
async function connected(name: ClientName, port: number): Promise<RedisClient> {
  const opened = openClient(name, { port }, { reconnect: true })
  clients.push(opened)
  await opened.ready
  return opened.client
}

for (const name of CLIENT_NAMES)
  describe(`when Redis fails (${name})`, () => {
    it('killed mid-load and restarted: nothing hangs or rejects, each mode is honoured, Redis is used again', async () => {
      const server = await startRedis()
      servers.push(server)
      const c = await connected(name, server.port)
      const byMode = stores(c)
      const run = load(byMode)
      const phase = { killed: 0, restarted: 0 }

      await run.eachMode(20, true)
      phase.killed = run.records.length
      await server.kill('SIGKILL')
      await run.eachMode(20, false, phase.killed)
      await server.restart()
      phase.restarted = run.records.length
      await run.eachMode(20, true, phase.restarted)
      await run.stop()

      expectBoundedAndHonoured(run, unhandled)
      for (const mode of FAIL_MODES) {
        expect(
          run.records.slice(0, phase.killed).filter((r) => r.mode === mode && r.source !== 'redis'),
        ).toEqual([])
      }
    }, 60_000)

    it('frozen (connected, never answering): every decision is bounded by timeoutMs, then Redis is used again', async () => {
      const server = await startRedis()
      servers.push(server)
      const c = await connected(name, server.port)
      const errors: string[] = []
      const byMode = stores(c)
      const observed = new RedisStore({
        client: c,
        prefix: 'frozen-observed',
        timeoutMs: TIMEOUT_MS,
        cooldownMs: 200,
        onError: (error) => errors.push((error as { code?: string }).code ?? error.message),
      })
      byMode.set('open', observed)
      const run = load(byMode)
      await run.eachMode(10, true)
      server.pause()
      const paused = run.records.length
      await run.eachMode(20, false, paused)
      server.resume()
      const resumed = run.records.length
      await run.eachMode(10, true, resumed)
      await run.stop()

      expectBoundedAndHonoured(run, unhandled)
      expect(errors.length).toBeGreaterThan(0)
      expect(new Set(errors)).toEqual(new Set(['ERR_FLOODGATE_REDIS_TIMEOUT']))
    }, 60_000)

    it('unreachable at start: decisions are bounded and take the fail mode; once Redis is up, it is used', async () => {
      const port = await freePort()
      const c = client(name, port)
      const byMode = stores(c)
      const run = load(byMode, 4)
      await run.eachMode(10, false)
      servers.push(await startRedis({ port }))
      await run.eachMode(10, true)
      await run.stop()

      expectBoundedAndHonoured(run, unhandled)
    }, 60_000)

    it('with the offline queue off, a dead client fails at once instead of waiting for the timeout', async () => {
      const port = await freePort()
      const c = client(name, port, false)
      const store = new RedisStore({ client: c, failMode: 'closed', timeoutMs: 60_000 })
      const decisions = await Promise.all(Array.from({ length: 5 }, () => store.consume(algorithm, 'k', 1)))
      expect(decisions.map((d) => d.source)).toEqual(Array(5).fill('fail-closed'))
      expect(unhandled).toEqual([])
    })

    it('peek, refund and consumeAll are bounded too; refund never rejects, reset does', async () => {
      const server = await startRedis()
      servers.push(server)
      const c = await connected(name, server.port)
      const fallback = new MemoryStore()
      const store = new RedisStore({
        client: c,
        failMode: 'fallback',
        fallback,
        timeoutMs: TIMEOUT_MS,
        cooldownMs: 50,
      })
      try {
        await expectOperationsFallBack({ store, fallback, backend: 'redis', freeze: () => server.pause() })
        await new Promise((r) => setTimeout(r, 60)) // past the cooldown: reset reaches the frozen server
        const small = fixedWindow({ limit: 2, window: '1h' })
        await expect(store.reset(small, 'k')).rejects.toMatchObject({ code: 'ERR_FLOODGATE_REDIS_TIMEOUT' })
      } finally {
        server.resume()
      }
      expect(unhandled).toEqual([])
    }, 30_000)
  })
