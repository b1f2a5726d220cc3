import { fixedWindow, MemoryStore } from '@floodgate/core'
import { freePort, type RedisServer, startRedis } from '@floodgate/testkit'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type FailMode, type RedisDecision, RedisStore } from '../src/index.js'

// Real failures of a real redis-server this file starts: killed mid-load and restarted on the same port,
// frozen (SIGSTOP: connected but silent), absent at start. Assertions count outcomes; the only clock read is
// each request's own latency, and the count of requests that took longer than timeoutMs + slack must be 0.
const TIMEOUT_MS = 300
const SLACK_MS = 500
const MODES: FailMode[] = ['open', 'closed', 'fallback']
const algorithm = fixedWindow({ limit: 1_000_000, window: '1h' })

interface Record {
  mode: FailMode
  source: RedisDecision['source']
  allowed: boolean
  ms: number
}

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled)
})
afterAll(() => {
  process.off('unhandledRejection', onUnhandled)
})

const clients: Redis[] = []
const servers: RedisServer[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.disconnect()
  for (const s of servers.splice(0)) await s.stop()
})

function client(port: number): Redis {
  const c = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 50, maxRetriesPerRequest: 2 })
  c.on('error', () => {}) // connection errors are expected here; ioredis would log them otherwise
  clients.push(c)
  return c
}

/** Keep `inFlight` requests per store going until stopped; record every outcome. */
function load(stores: Map<FailMode, RedisStore>, inFlight = 8) {
  const records: Record[] = []
  const rejected: unknown[] = []
  let running = true
  let next = 0
  const worker = async (mode: FailMode, store: RedisStore) => {
    while (running) {
      const start = performance.now()
      try {
        const d = await store.consume(algorithm, `load-${next++ % 50}`, 1)
        records.push({ mode, source: d.source, allowed: d.allowed, ms: performance.now() - start })
      } catch (error) {
        rejected.push(error)
      }
      await new Promise((r) => setTimeout(r, 2))
    }
  }
  const workers = [...stores].flatMap(([mode, store]) =>
    Array.from({ length: inFlight }, () => worker(mode, store)),
  )
  return {
    records,
    rejected,
    count: (test: (r: Record) => boolean) => records.filter(test).length,
    async stop() {
      running = false
      await Promise.all(workers)
    },
  }
}

/** Wait (on events, polling the outcome count) until `done()`; the test's own timeout bounds it. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10))
}

function stores(c: Redis): Map<FailMode, RedisStore> {
  return new Map(
    MODES.map((mode) => [
      mode,
      new RedisStore({
        client: c,
        prefix: `failure-${mode}`,
        timeoutMs: TIMEOUT_MS,
        cooldownMs: 200,
        failMode: mode,
        fallback: mode === 'fallback' ? new MemoryStore() : undefined,
      }),
    ]),
  )
}

function expectModesHonoured(records: Record[]) {
  const degraded = records.filter((r) => r.source !== 'redis')
  for (const r of degraded) {
    if (r.mode === 'open') expect(r).toMatchObject({ source: 'fail-open', allowed: true })
    if (r.mode === 'closed') expect(r).toMatchObject({ source: 'fail-closed', allowed: false })
    if (r.mode === 'fallback') expect(r).toMatchObject({ source: 'fallback', allowed: true })
  }
}

describe('when Redis fails', () => {
  it('killed mid-load and restarted: nothing hangs or rejects, each mode is honoured, Redis is used again', async () => {
    const server = await startRedis()
    servers.push(server)
    const c = client(server.port)
    const byMode = stores(c)
    const run = load(byMode)
    const phase = { killed: 0, restarted: 0 }

    await until(() => MODES.every((m) => run.count((r) => r.mode === m && r.source === 'redis') >= 20))
    phase.killed = run.records.length
    await server.kill('SIGKILL')
    await until(() =>
      MODES.every(
        (m) =>
          run.records.slice(phase.killed).filter((r) => r.mode === m && r.source !== 'redis').length >= 20,
      ),
    )
    await server.restart()
    phase.restarted = run.records.length
    await until(() =>
      MODES.every(
        (m) =>
          run.records.slice(phase.restarted).filter((r) => r.mode === m && r.source === 'redis').length >= 20,
      ),
    )
    await run.stop()

    expect(run.rejected).toEqual([])
    expect(unhandled).toEqual([])
    expect(run.count((r) => r.ms > TIMEOUT_MS + SLACK_MS)).toBe(0)
    expectModesHonoured(run.records)
    for (const mode of MODES) {
      expect(
        run.records.slice(0, phase.killed).filter((r) => r.mode === mode && r.source !== 'redis'),
      ).toEqual([])
    }
  }, 60_000)

  it('frozen (connected, never answering): every decision is bounded by timeoutMs, then Redis is used again', async () => {
    const server = await startRedis()
    servers.push(server)
    const c = client(server.port)
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
    await until(() => MODES.every((m) => run.count((r) => r.mode === m && r.source === 'redis') >= 10))
    server.pause()
    const paused = run.records.length
    await until(() =>
      MODES.every(
        (m) => run.records.slice(paused).filter((r) => r.mode === m && r.source !== 'redis').length >= 20,
      ),
    )
    server.resume()
    const resumed = run.records.length
    await until(() =>
      MODES.every(
        (m) => run.records.slice(resumed).filter((r) => r.mode === m && r.source === 'redis').length >= 10,
      ),
    )
    await run.stop()

    expect(run.rejected).toEqual([])
    expect(unhandled).toEqual([])
    expect(run.count((r) => r.ms > TIMEOUT_MS + SLACK_MS)).toBe(0)
    expectModesHonoured(run.records)
    expect(errors.length).toBeGreaterThan(0)
    expect(new Set(errors)).toEqual(new Set(['ERR_FLOODGATE_REDIS_TIMEOUT']))
  }, 60_000)

  it('unreachable at start: decisions are bounded and take the fail mode; once Redis is up, it is used', async () => {
    const port = await freePort()
    const c = client(port)
    const byMode = stores(c)
    const run = load(byMode, 4)
    await until(() => MODES.every((m) => run.count((r) => r.mode === m && r.source !== 'redis') >= 10))
    servers.push(await startRedis({ port }))
    await until(() => MODES.every((m) => run.count((r) => r.mode === m && r.source === 'redis') >= 10))
    await run.stop()

    expect(run.rejected).toEqual([])
    expect(unhandled).toEqual([])
    expect(run.count((r) => r.ms > TIMEOUT_MS + SLACK_MS)).toBe(0)
    expectModesHonoured(run.records)
  }, 60_000)

  it('with the offline queue off, a dead client fails at once instead of waiting for the timeout', async () => {
    const port = await freePort()
    const c = new Redis({ port, lazyConnect: true, enableOfflineQueue: false, retryStrategy: () => null })
    c.on('error', () => {})
    clients.push(c)
    const store = new RedisStore({ client: c, failMode: 'closed', timeoutMs: 60_000 })
    const decisions = await Promise.all(Array.from({ length: 5 }, () => store.consume(algorithm, 'k', 1)))
    expect(decisions.map((d) => d.source)).toEqual(Array(5).fill('fail-closed'))
    expect(unhandled).toEqual([])
  })

  it('peek, refund and consumeAll are bounded too; refund never rejects, reset does', async () => {
    const server = await startRedis()
    servers.push(server)
    const c = client(server.port)
    const fallback = new MemoryStore()
    const store = new RedisStore({
      client: c,
      failMode: 'fallback',
      fallback,
      timeoutMs: TIMEOUT_MS,
      cooldownMs: 50,
    })
    const small = fixedWindow({ limit: 2, window: '1h' })
    expect((await store.consume(small, 'k', 1)).source).toBe('redis')
    server.pause()
    try {
      const peek = await store.peek(small, 'k', 1)
      expect(peek.source).toBe('fallback')
      expect(peek.remaining).toBe(2)
      const all = await store.consumeAll([
        { algorithm: small, key: 'k', cost: 1 },
        { algorithm: small, key: 'j', cost: 1 },
      ])
      expect(all.map((d) => (d as RedisDecision).source)).toEqual(['fallback', 'fallback'])
      await expect(store.refund(small, 'k', 1)).resolves.toBeUndefined()
      expect((await fallback.peek(small, 'k', 1)).remaining).toBe(2)
      await new Promise((r) => setTimeout(r, 60)) // past the cooldown: reset reaches the frozen server
      await expect(store.reset(small, 'k')).rejects.toMatchObject({ code: 'ERR_FLOODGATE_REDIS_TIMEOUT' })
    } finally {
      server.resume()
    }
    expect(unhandled).toEqual([])
  }, 30_000)
})
