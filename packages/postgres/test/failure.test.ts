import { createLimiter, fixedWindow, type Limiter } from '@floodgate/core'
import {
  expectBoundedAndHonoured,
  expectOperationsFallBack,
  type FailModeName,
  type FailureLoad,
  failureLoad,
  limitersByFailMode,
  until,
  watchUnhandled,
} from '@floodgate/test-harness'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { migrate, PostgresStore } from '../src/index.js'
import { type PostgresServer, startPostgres } from './helpers/cluster.js'
import { warmUp } from './helpers/database.js'

// Real failures of a real PostgreSQL this file starts (never the machine's shared one): killed mid-load and
// restarted on the same port, down at start, one backend frozen (SIGSTOP: connected but silent). The store
// rejects when it cannot answer; a limiter of each failure mode over it decides. Assertions count outcomes; the
// only clock read is each request's own latency, and the count of requests that took longer than storeTimeout +
// slack must be 0.
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

/** Keep `inFlight` requests per limiter going until stopped; record every outcome. */
const load = (limiters: Map<FailModeName, Limiter>, inFlight = 4) =>
  failureLoad({ limiters, backend: 'postgres', inFlight })

/** A PostgresStore on `pool`, and a limiter of each failure mode over it (each under its own prefix). */
function limiters(pool: pg.Pool): Map<FailModeName, Limiter> {
  const store = new PostgresStore({ pool, schema: 'floodgate', cooldownMs: 200 })
  return limitersByFailMode(store, { algorithm, storeTimeout: TIMEOUT_MS })
}

const expectBoundedAndSettled = (run: FailureLoad) =>
  expectBoundedAndHonoured(run, { unhandled, boundMs: TIMEOUT_MS + SLACK_MS, backend: 'postgres' })

describe('when PostgreSQL fails', () => {
  it('killed mid-load and restarted: nothing hangs or rejects, each mode is honoured, PostgreSQL is used again', async () => {
    const run = load(limiters(await warmUp(poolOf(server.connection), 'floodgate')))
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
    const run = load(limiters(poolOf(server.connection)), 2)
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
      cooldownMs: 50,
      onError: (error) => errors.push((error as { code?: string }).code ?? error.message),
    })
    const limiter = createLimiter({ store, algorithm, failMode: 'closed', storeTimeout: TIMEOUT_MS })
    const source = (d: object) => (d as { source?: string }).source
    expect(source(await limiter.consume('frozen'))).toBe('postgres')
    const backend = (await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number
    process.kill(backend, 'SIGSTOP')
    try {
      const start = performance.now()
      const frozen = await limiter.consume('frozen')
      expect(performance.now() - start).toBeLessThan(TIMEOUT_MS + SLACK_MS)
      expect(source(frozen)).toBe('fail-closed')
      expect(frozen).toMatchObject({ allowed: false, retryAfterMs: 1000 })
      expect(errors).toEqual(['ERR_FLOODGATE_POSTGRES_TIMEOUT'])
      expect(pool.totalCount).toBe(0) // discarded, not returned to the pool
      await until(() => !store.degraded)
      expect(source(await limiter.consume('frozen'))).toBe('postgres')
    } finally {
      process.kill(backend, 'SIGCONT')
    }
    expect(unhandled).toEqual([])
  }, 30_000)

  it('peek, refund, consumeAll and sweep are bounded too and reject; over a limiter the fallback decides; reset and sweep reject', async () => {
    const pool = await warmUp(poolOf(server.connection, { max: 1 }), 'floodgate')
    const store = new PostgresStore({ pool, schema: 'floodgate', cooldownMs: 50 })
    let backend: number | undefined
    const freeze = async () => {
      backend = (await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number
      process.kill(backend, 'SIGSTOP')
    }
    try {
      await expectOperationsFallBack({
        store,
        backend: 'postgres',
        codes: {
          timeout: 'ERR_FLOODGATE_POSTGRES_TIMEOUT',
          unavailable: 'ERR_FLOODGATE_POSTGRES_UNAVAILABLE',
        },
        storeTimeout: TIMEOUT_MS,
        freeze,
      })
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
    const make = (schema: string) => new PostgresStore({ pool, schema })
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
