import { fixedWindow, MemoryStore } from '@floodgate/core'
import {
  byFailMode,
  expectBoundedAndHonoured,
  expectOperationsFallBack,
  type FailureLoad,
  failureLoad,
  until,
  watchUnhandled,
} from '@floodgate/test-harness'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type FailMode, migrate, PostgresStore } from '../src/index.js'
import { type PostgresServer, startPostgres } from './helpers/cluster.js'
import { warmUp } from './helpers/database.js'

// Real failures of a real PostgreSQL this file starts (never the machine's shared one): killed mid-load and
// restarted on the same port, down at start, one backend frozen (SIGSTOP: connected but silent). Assertions
// count outcomes; the only clock read is each request's own latency, and the count of requests that took
// longer than timeoutMs + slack must be 0.
const TIMEOUT_MS = 500
const SLACK_MS = 500
const algorithm = fixedWindow({ limit: 1_000_000, window: '1h' })
const unhandled = watchUnhandled()

let server: PostgresServer
beforeAll(async () => {
  server = await startPostgres()
  const pool = new pg.Pool(server.connection)
  await migrate(pool, { schema: 'floodgate' })
  await migrate(pool, { schema: 'floodgate_unlogged', unlogged: true })
  await pool.end()
}, 60_000)
afterAll(async () => {
  await server?.stop()
})

const pools: pg.Pool[] = []
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end().catch(() => {})))
})

function poolOf(connection: pg.PoolConfig, options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ ...connection, max: 6, ...options })
  pool.on('error', () => {}) // connection errors are expected here
  pools.push(pool)
  return pool
}

/** Keep `inFlight` requests per store going until stopped; record every outcome. */
const load = (stores: Map<FailMode, PostgresStore>, inFlight = 4) =>
  failureLoad({ stores, backend: 'postgres', algorithm, inFlight })

function stores(pool: pg.Pool): Map<FailMode, PostgresStore> {
  return byFailMode(
    (mode) =>
      new PostgresStore({
        pool,
        schema: 'floodgate',
        timeoutMs: TIMEOUT_MS,
        cooldownMs: 200,
        failMode: mode,
        fallback: mode === 'fallback' ? new MemoryStore() : undefined,
      }),
  )
}

const expectBoundedAndSettled = (run: FailureLoad) =>
  expectBoundedAndHonoured(run, { unhandled, boundMs: TIMEOUT_MS + SLACK_MS, backend: 'postgres' })

describe('when PostgreSQL fails', () => {
  it('killed mid-load and restarted: nothing hangs or rejects, each mode is honoured, PostgreSQL is used again', async () => {
    const run = load(stores(await warmUp(poolOf(server.connection), 'floodgate')))
    await run.eachMode(20, true)
    const killed = run.records.length
    await server.kill('SIGKILL')
    await run.eachMode(20, false, killed)
    await server.restart()
    await run.eachMode(20, true, run.records.length)
    await run.stop()

    expectBoundedAndSettled(run)
    expect(run.records.slice(0, killed).filter((r) => r.source !== 'postgres')).toEqual([])
  }, 60_000)

  it('down at start: decisions are bounded and take the fail mode; once PostgreSQL is up, it is used', async () => {
    await server.kill('SIGTERM') // a clean shutdown: the pool below never sees it up
    const run = load(stores(poolOf(server.connection)), 2)
    await run.eachMode(10, false)
    await server.restart()
    await run.eachMode(10, true)
    await run.stop()

    expectBoundedAndSettled(run)
  }, 60_000)

  it('one backend frozen (connected, never answering): the decision is bounded, its connection discarded, a fresh one used', async () => {
    // One connection: a stuck one kept would block every decision.
    const pool = await warmUp(poolOf(server.connection, { max: 1 }), 'floodgate')
    const errors: string[] = []
    const store = new PostgresStore({
      pool,
      schema: 'floodgate',
      timeoutMs: TIMEOUT_MS,
      cooldownMs: 50,
      failMode: 'closed',
      onError: (error) => errors.push((error as { code?: string }).code ?? error.message),
    })
    expect((await store.consume(algorithm, 'frozen', 1)).source).toBe('postgres')
    const backend = (await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number
    process.kill(backend, 'SIGSTOP')
    try {
      const start = performance.now()
      const frozen = await store.consume(algorithm, 'frozen', 1)
      expect(performance.now() - start).toBeLessThan(TIMEOUT_MS + SLACK_MS)
      expect(frozen.source).toBe('fail-closed')
      expect(errors).toEqual(['ERR_FLOODGATE_POSTGRES_TIMEOUT'])
      expect(pool.totalCount).toBe(0) // discarded, not returned to the pool
      await until(() => !store.degraded)
      expect((await store.consume(algorithm, 'frozen', 1)).source).toBe('postgres')
    } finally {
      process.kill(backend, 'SIGCONT')
    }
    expect(unhandled).toEqual([])
  }, 30_000)

  it('peek, refund, consumeAll and sweep are bounded too; refund never rejects, reset and sweep do', async () => {
    const pool = await warmUp(poolOf(server.connection, { max: 1 }), 'floodgate')
    const fallback = new MemoryStore()
    const store = new PostgresStore({
      pool,
      schema: 'floodgate',
      failMode: 'fallback',
      fallback,
      timeoutMs: TIMEOUT_MS,
      cooldownMs: 50,
    })
    let backend: number | undefined
    const freeze = async () => {
      backend = (await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number
      process.kill(backend, 'SIGSTOP')
    }
    try {
      await expectOperationsFallBack({ store, fallback, backend: 'postgres', freeze })
    } finally {
      if (backend !== undefined) process.kill(backend, 'SIGCONT')
    }
    // A dead server: reset and sweep, explicit operations, reject with the error.
    await server.kill('SIGKILL')
    try {
      await until(() => !store.degraded)
      await expect(store.reset(algorithm, 'k')).rejects.toBeInstanceOf(Error)
      await until(() => !store.degraded)
      await expect(store.sweep()).rejects.toBeInstanceOf(Error)
    } finally {
      await server.restart()
    }
    expect(unhandled).toEqual([])
  }, 30_000)

  it('a crash keeps a logged table (after a checkpoint) and empties an unlogged one, as documented', async () => {
    const pool = poolOf(server.connection)
    const make = (schema: string) => new PostgresStore({ pool, schema, failMode: 'closed' })
    const logged = make('floodgate')
    const unlogged = make('floodgate_unlogged')
    const window = fixedWindow({ limit: 10, window: '1h' })
    for (const store of [logged, unlogged])
      expect((await store.consume(window, 'crash', 3)).remaining).toBe(7)
    await pool.query('CHECKPOINT') // flushes the asynchronous commits too
    await server.kill('SIGKILL')
    await server.restart()
    await until(() => !logged.degraded && !unlogged.degraded)
    expect((await logged.peek(window, 'crash', 1)).remaining).toBe(7)
    expect((await unlogged.peek(window, 'crash', 1)).remaining).toBe(10)
  }, 30_000)
})
