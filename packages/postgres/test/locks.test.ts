import { createLimiter, fixedWindow, type Limiter } from '@floodgate/core'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostgresStore } from '../src/index.js'
import { SHARED_POSTGRES, type TestSchema, testSchema, warmUp } from './helpers/database.js'

// A lock another session holds for long, on a key's row or on the whole table: each decision that needs it
// is bounded (PostgreSQL gives up after lockTimeoutMs, before the limiter's storeTimeout), rejected by the
// store and decided by the limiter's failMode ('closed' here), and leaves no backend behind still waiting; the
// other keys go on being decided by PostgreSQL. A decision waiting for a lock holds its pool connection
// meanwhile, so the pool has one per request in flight here (a pool too small for that makes the others queue
// past storeTimeout, which opens the circuit: see the docs). Batched (the default), the decisions of one tick
// share one statement: a batch that needs the held row waits for it like one decision would, and fails as a
// whole; with `batch: false`, each key's decision is its own statement and the other keys are not held up.
const TIMEOUT_MS = 1000 // lockTimeoutMs 250: a held row's two waits end within 500 ms, well before it
const SLACK_MS = 500
const algorithm = fixedWindow({ limit: 1_000_000, window: '1h' })
let db: TestSchema
let holder: pg.Client

beforeAll(async () => {
  db = await testSchema({ pool: { max: 12 } })
  await warmUp(db.pool, db.schema)
  holder = new pg.Client(SHARED_POSTGRES)
  await holder.connect()
})
afterAll(async () => {
  await holder?.end()
  await db?.drop()
})

function observedStore(batch = true) {
  const errors: { code: string | undefined; timedOut: boolean }[] = []
  const store = new PostgresStore({
    pool: db.pool,
    schema: db.schema,
    batch,
    onError: (error, event) =>
      errors.push({ code: (error as { code?: string }).code, timedOut: event.timedOut }),
  })
  const limiter = createLimiter({ store, algorithm, failMode: 'closed', storeTimeout: TIMEOUT_MS })
  return { store, limiter, errors }
}

/** Decide each key once, all at once; each decision with its latency. */
async function decideAll(limiter: Limiter, keys: string[]) {
  return Promise.all(
    keys.map(async (key) => {
      const start = performance.now()
      const decision = (await limiter.consume(key)) as { source?: string }
      return { key, source: decision.source, ms: performance.now() - start }
    }),
  )
}

/** Backends of this database still waiting for a lock on this schema's functions (the holder excluded). */
async function waiting(): Promise<number> {
  const { rows } = await holder.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity
     WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'
       AND query LIKE $1`,
    [`%"${db.schema}"%`],
  )
  return rows[0].n
}

describe('a lock held for long', () => {
  it("on one key's row, batch: false: that key's decisions are bounded and fail closed, the others are decided, nothing keeps waiting", async () => {
    const { store, limiter, errors } = observedStore(false)
    expect((await store.consume(algorithm, 'busy', 1)).source).toBe('postgres')
    await holder.query('BEGIN')
    await holder.query(`SELECT FROM "${db.schema}".floodgate WHERE key = 'busy' FOR UPDATE`)
    try {
      const keys = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 'busy' : `free-${i}`))
      const decided = await decideAll(limiter, keys)
      expect(decided.filter((d) => d.key === 'busy').map((d) => d.source)).toEqual(
        Array(6).fill('fail-closed'),
      )
      expect(decided.filter((d) => d.key !== 'busy').map((d) => d.source)).toEqual(Array(6).fill('postgres'))
      expect(decided.filter((d) => d.ms > TIMEOUT_MS + SLACK_MS)).toEqual([])
      // PostgreSQL's own lock_timeout (55P03) answered, a time bound but no outage: the circuit stays closed.
      expect(errors).toEqual(Array(6).fill({ code: '55P03', timedOut: true }))
      expect(store.degraded).toBe(false)
      expect(await waiting()).toBe(0)
    } finally {
      await holder.query('ROLLBACK')
    }
    expect((await store.consume(algorithm, 'busy', 1)).source).toBe('postgres')
  })

  it("on one key's row, batched: the tick's batch that needs it is bounded and fails closed as a whole; later batches without it are decided", async () => {
    const { store, limiter, errors } = observedStore()
    expect((await store.consume(algorithm, 'busy', 1)).source).toBe('postgres')
    await holder.query('BEGIN')
    await holder.query(`SELECT FROM "${db.schema}".floodgate WHERE key = 'busy' FOR UPDATE`)
    try {
      const keys = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? 'busy' : `free-${i}`))
      const decided = await decideAll(limiter, keys)
      expect(decided.map((d) => d.source)).toEqual(Array(12).fill('fail-closed'))
      expect(decided.filter((d) => d.ms > TIMEOUT_MS + SLACK_MS)).toEqual([])
      // One statement waited and was cut short by lock_timeout: each of its twelve requests heard of it.
      expect(errors).toEqual(Array(12).fill({ code: '55P03', timedOut: true }))
      expect(store.degraded).toBe(false)
      expect(await waiting()).toBe(0)
      const free = await decideAll(
        limiter,
        keys.filter((k) => k !== 'busy'),
      )
      expect(free.map((d) => d.source)).toEqual(Array(6).fill('postgres'))
    } finally {
      await holder.query('ROLLBACK')
    }
    expect((await store.consume(algorithm, 'busy', 1)).source).toBe('postgres')
  })

  it('on the whole table (ACCESS EXCLUSIVE, as a long migration takes): every decision is bounded, then all resume', async () => {
    const { store, limiter, errors } = observedStore()
    expect((await store.consume(algorithm, 'warm', 1)).source).toBe('postgres')
    await holder.query('BEGIN')
    await holder.query(`LOCK TABLE "${db.schema}".floodgate IN ACCESS EXCLUSIVE MODE`)
    try {
      const decided = await decideAll(
        limiter,
        Array.from({ length: 8 }, (_, i) => `table-${i}`),
      )
      expect(decided.map((d) => d.source)).toEqual(Array(8).fill('fail-closed'))
      expect(decided.filter((d) => d.ms > TIMEOUT_MS + SLACK_MS)).toEqual([])
      expect(new Set(errors.map((e) => e.code))).toEqual(new Set(['55P03']))
      expect(await waiting()).toBe(0)
    } finally {
      await holder.query('ROLLBACK')
    }
    const after = await decideAll(limiter, ['table-0', 'table-1'])
    expect(after.map((d) => d.source)).toEqual(['postgres', 'postgres'])
  })
})
