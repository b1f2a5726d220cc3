import { fixedWindow } from '@floodgate/core'
import { type RedisServer, recordingSink, startRedis } from '@floodgate/test-harness'
import { afterEach, describe, expect, it } from 'vitest'
import { RedisStore, SyncedStore } from '../src/index.js'
import { openClient, type TestClient } from './open-client.js'

// What a RedisStore reports through its `metrics` option, on a redis-server this file starts: each call's
// duration by operation, block-cache hits, and, with the server frozen (SIGSTOP), the timeout, the fail-mode
// decisions and the open circuit. Counts only: no assertion on how long anything took.
const clients: TestClient[] = []
const servers: RedisServer[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close()
  for (const s of servers.splice(0)) await s.stop()
})

async function setup(options: Partial<ConstructorParameters<typeof RedisStore>[0]> = {}) {
  const server = await startRedis()
  servers.push(server)
  const opened = openClient('ioredis', { port: server.port }, { reconnect: true })
  clients.push(opened)
  await opened.ready
  const sink = recordingSink()
  const store = new RedisStore({ client: opened.client, metrics: sink, timeoutMs: 100, ...options })
  return { server, sink, store }
}

const algorithm = fixedWindow({ limit: 2, window: '1m' })
const store = 'redis'
const calls = (sink: ReturnType<typeof recordingSink>, operation: string) =>
  sink.observations('floodgate.store.duration', { store, operation }).length

describe('RedisStore metrics', () => {
  it('times every call to Redis by operation; refusals from the block cache count as hits, untimed', async () => {
    const { sink, store: redis } = await setup({ blockCache: true })
    const allowed = []
    for (let i = 0; i < 4; i++) allowed.push((await redis.consume(algorithm, 'k', 1)).allowed)
    expect(allowed).toEqual([true, true, false, false])
    expect(calls(sink, 'consume')).toBe(3) // the 4th was refused from the block cache
    expect(sink.count('floodgate.block_cache.hits', { store })).toBe(1)
    await redis.peek(algorithm, 'other', 1)
    await redis.refund(algorithm, 'other', 1)
    await redis.reset(algorithm, 'other')
    await redis.consumeAll([
      { algorithm, key: 'a', cost: 1 },
      { algorithm, key: 'b', cost: 1 },
    ])
    for (const operation of ['peek', 'refund', 'reset', 'consume_all']) expect(calls(sink, operation)).toBe(1)
    for (const s of sink.observations('floodgate.store.duration', { store, operation: 'consume' })) {
      expect(s).toBeGreaterThan(0)
    }
    expect(sink.count('floodgate.store.errors', { store, kind: 'timeout' })).toBe(0)
    expect(sink.gaugeValue('floodgate.circuit.open', { store })).toBe(0)
  })

  it('frozen Redis: a timeout, the fail mode taking each decision, the circuit open; closing stops the gauge', async () => {
    const { server, sink, store: redis } = await setup({ failMode: 'fallback', cooldownMs: 60_000 })
    await redis.consume(algorithm, 'k', 1)
    server.pause()
    try {
      expect((await redis.consume(algorithm, 'k', 1)).source).toBe('fallback') // waits timeoutMs
      expect((await redis.consume(algorithm, 'k', 1)).source).toBe('fallback') // the circuit: at once
    } finally {
      server.resume()
    }
    expect(sink.count('floodgate.store.errors', { store, kind: 'timeout' })).toBe(1)
    expect(sink.count('floodgate.fail_mode', { store, mode: 'fallback' })).toBe(2)
    expect(sink.count('floodgate.fail_mode', { store, mode: 'open' })).toBe(0)
    expect(calls(sink, 'consume')).toBe(2) // the one that timed out was timed; the fail-fast one never left
    expect(sink.gaugeValue('floodgate.circuit.open', { store })).toBe(1)
    redis.close()
    expect(sink.gaugeValue('floodgate.circuit.open', { store })).toBeUndefined()
  })

  it('a SyncedStore over it reports its syncs there: each call timed as operation sync, a failed one as an error', async () => {
    const { server, sink, store: redis } = await setup()
    const synced = new SyncedStore({ store: redis, processes: 1 })
    const wide = fixedWindow({ limit: 100, window: '1m' })
    for (const key of ['a', 'b', 'c']) expect((await synced.consume(wide, key, 1)).allowed).toBe(true)
    await synced.sync()
    expect(synced.stats.calls).toBeGreaterThanOrEqual(2) // the keys' first read, then the sync of their units
    expect(calls(sink, 'sync')).toBe(synced.stats.calls)
    expect(sink.count('floodgate.store.errors', { store, kind: 'timeout' })).toBe(0)
    await synced.consume(wide, 'a', 1) // counted locally, sent with the next sync
    server.pause()
    try {
      await synced.sync() // times out (timeoutMs 100)
    } finally {
      server.resume()
    }
    expect(sink.count('floodgate.store.errors', { store, kind: 'timeout' })).toBe(1)
    expect(calls(sink, 'sync')).toBe(synced.stats.calls) // the call that timed out was timed too
    expect(synced.stats.failedCalls).toBe(1)
    await synced.close()
  })

  it('a metrics option that is not a sink fails at creation, naming it', () => {
    expect(() => new RedisStore({ client: {} as never, metrics: {} as never })).toThrow(/RedisStore\.client/)
    const client = openClient('ioredis', { port: 1 }, { reconnect: true })
    clients.push(client)
    expect(() => new RedisStore({ client: client.client, metrics: {} as never })).toThrow(
      /RedisStore\.metrics.*metrics sink/,
    )
  })
})
