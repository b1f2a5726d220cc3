import { fixedWindow, MemoryStore } from '@floodgate/core'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type FailMode, migrate, type PostgresDecision, PostgresStore } from '../src/index.js'
import { type PostgresServer, startPostgres } from './helpers/cluster.js'
import { warmUp } from './helpers/database.js'

// Real failures of a real PostgreSQL this file starts (never the machine's shared one): killed mid-load and
// restarted on the same port, down at start, one backend frozen (SIGSTOP: connected but silent). Assertions
// count outcomes; the only clock read is each request's own latency, and the count of requests that took
// longer than timeoutMs + slack must be 0.
const TIMEOUT_MS = 500
const SLACK_MS = 500
const MODES: FailMode[] = ['open', 'closed', 'fallback']
const algorithm = fixedWindow({ limit: 1_000_000, window: '1h' })

interface Outcome {
  mode: FailMode
  source: PostgresDecision['source']
  allowed: boolean
  ms: number
}

const unhandled: unknown[] = []
const onUnhandled = (reason: unknown) => unhandled.push(reason)
let server: PostgresServer
beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled)
  server = await startPostgres()
  const pool = new pg.Pool(server.connection)
  await migrate(pool, { schema: 'floodgate' })
  await migrate(pool, { schema: 'floodgate_unlogged', unlogged: true })
  await pool.end()
}, 60_000)
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled)
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
function load(stores: Map<FailMode, PostgresStore>, inFlight = 4) {
  const records: Outcome[] = []
  const rejected: unknown[] = []
  let running = true
  let next = 0
  const worker = async (mode: FailMode, store: PostgresStore) => {
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
    count: (test: (r: Outcome) => boolean) => records.filter(test).length,
    since: (from: number, test: (r: Outcome) => boolean) => records.slice(from).filter(test).length,
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

function stores(pool: pg.Pool): Map<FailMode, PostgresStore> {
  return new Map(
    MODES.map((mode) => [
      mode,
      new PostgresStore({
        pool,
        schema: 'floodgate',
        timeoutMs: TIMEOUT_MS,
        cooldownMs: 200,
        failMode: mode,
        fallback: mode === 'fallback' ? new MemoryStore() : undefined,
      }),
    ]),
  )
}

function expectModesHonoured(records: Outcome[]) {
  for (const r of records.filter((r) => r.source !== 'postgres')) {
    if (r.mode === 'open') expect(r).toMatchObject({ source: 'fail-open', allowed: true })
    if (r.mode === 'closed') expect(r).toMatchObject({ source: 'fail-closed', allowed: false })
    if (r.mode === 'fallback') expect(r).toMatchObject({ source: 'fallback', allowed: true })
  }
}

function expectBoundedAndSettled(run: ReturnType<typeof load>) {
  expect(run.rejected).toEqual([])
  expect(unhandled).toEqual([])
  expect(run.count((r) => r.ms > TIMEOUT_MS + SLACK_MS)).toBe(0)
  expectModesHonoured(run.records)
}

describe('when PostgreSQL fails', () => {
  it('killed mid-load and restarted: nothing hangs or rejects, each mode is honoured, PostgreSQL is used again', async () => {
    const run = load(stores(await warmUp(poolOf(server.connection), 'floodgate')))
    const each = (test: (m: FailMode) => boolean) => MODES.every(test)
    await until(() => each((m) => run.count((r) => r.mode === m && r.source === 'postgres') >= 20))
    const killed = run.records.length
    await server.kill('SIGKILL')
    await until(() => each((m) => run.since(killed, (r) => r.mode === m && r.source !== 'postgres') >= 20))
    await server.restart()
    const restarted = run.records.length
    await until(() => each((m) => run.since(restarted, (r) => r.mode === m && r.source === 'postgres') >= 20))
    await run.stop()

    expectBoundedAndSettled(run)
    expect(run.records.slice(0, killed).filter((r) => r.source !== 'postgres')).toEqual([])
  }, 60_000)

  it('down at start: decisions are bounded and take the fail mode; once PostgreSQL is up, it is used', async () => {
    await server.kill('SIGTERM') // a clean shutdown: the pool below never sees it up
    const run = load(stores(poolOf(server.connection)), 2)
    await until(() => MODES.every((m) => run.count((r) => r.mode === m && r.source !== 'postgres') >= 10))
    await server.restart()
    await until(() => MODES.every((m) => run.count((r) => r.mode === m && r.source === 'postgres') >= 10))
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
    const small = fixedWindow({ limit: 2, window: '1h' })
    expect((await store.consume(small, 'k', 1)).source).toBe('postgres')
    const backend = (await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number
    process.kill(backend, 'SIGSTOP')
    try {
      const peek = await store.peek(small, 'k', 1)
      expect(peek.source).toBe('fallback')
      expect(peek.remaining).toBe(2)
      const all = await store.consumeAll([
        { algorithm: small, key: 'k', cost: 1 },
        { algorithm: small, key: 'j', cost: 1 },
      ])
      expect(all.map((d) => (d as PostgresDecision).source)).toEqual(['fallback', 'fallback'])
      await expect(store.refund(small, 'k', 1)).resolves.toBeUndefined()
      expect((await fallback.peek(small, 'k', 1)).remaining).toBe(2)
    } finally {
      process.kill(backend, 'SIGCONT')
    }
    // A dead server: reset and sweep, explicit operations, reject with the error.
    await server.kill('SIGKILL')
    try {
      await until(() => !store.degraded)
      await expect(store.reset(small, 'k')).rejects.toBeInstanceOf(Error)
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
