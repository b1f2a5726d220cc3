import { fixedWindow } from '@floodgate/core'
import { algorithmCases } from '@floodgate/testing'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { type PostgresDecision, PostgresStore } from '../src/index.js'
import { SHARED_POSTGRES, schemaForTests, testSchema } from './helpers/database.js'

// The store's less travelled paths, against the real PostgreSQL: a cost that can never pass, a function
// that answers nonsense, an ended pool, a connection killed while idle, a hook that throws.
const db = schemaForTests({ pool: { max: 2 } })
const algorithm = fixedWindow({ limit: 5, window: '1m' })
const fields = (d: PostgresDecision) => ({
  allowed: d.allowed,
  remaining: d.remaining,
  resetMs: d.resetMs,
  retryAfterMs: d.retryAfterMs,
  delayMs: d.delayMs,
})

describe('PostgresStore, unusual paths', () => {
  it('a cost above the limit is refused with retryAfterMs Infinity, as the algorithm says, and writes nothing', async () => {
    const store = new PostgresStore({ pool: db.pool, schema: db.schema, failMode: 'closed' })
    const now = Date.UTC(2026, 0, 1, 12)
    for (const { name, create } of algorithmCases) {
      const a = create()
      const reference = a.consume(new Float64Array(a.stateSize), 0, now, a.limit + 1)
      const got = await store.consume(a, `too-much-${name}`, a.limit + 1, now)
      expect(fields(got), name).toEqual(fields({ ...reference, source: 'postgres' }))
      expect(got.retryAfterMs).toBe(Number.POSITIVE_INFINITY)
    }
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM "${db.schema}".floodgate`)
    expect(rows[0].n).toBe(0)
  })

  it('a function that answers nonsense takes the fail mode, is reported, and does not open the circuit', async () => {
    const other = await testSchema({ pool: { max: 1 } })
    try {
      await other.pool.query(`DROP FUNCTION "${other.schema}".floodgate_decide`)
      await other.pool.query(`CREATE FUNCTION "${other.schema}".floodgate_decide(
          text, text, text, text, float8, float8, float8, text, boolean, float8, float8, float8, float8)
        RETURNS "${other.schema}".floodgate_result LANGUAGE sql AS
        $$ SELECT (NULL, 'NaN', 0, 0, 0, NULL, 0, false)::"${other.schema}".floodgate_result $$`)
      const errors: Error[] = []
      const store = new PostgresStore({
        pool: other.pool,
        schema: other.schema,
        failMode: 'closed',
        onError: (e) => errors.push(e),
      })
      expect((await store.consume(algorithm, 'k', 1)).source).toBe('fail-closed')
      expect((await store.consume(algorithm, 'k', 1)).source).toBe('fail-closed')
      expect(errors.map((e) => e.name)).toEqual(['TypeError', 'TypeError'])
      expect(store.degraded).toBe(false)
    } finally {
      await other.drop()
    }
  })

  it('an ended pool, and a hook that throws, still give a decision; a pool that cannot connect opens the circuit', async () => {
    const pool = new pg.Pool(SHARED_POSTGRES)
    await pool.end()
    const store = new PostgresStore({
      pool,
      failMode: 'open',
      onError: () => {
        throw new Error('bad hook')
      },
    })
    expect(await store.consume(algorithm, 'k', 1)).toMatchObject({ allowed: true, source: 'fail-open' })
    expect(store.degraded).toBe(true)
    await expect(store.refund(algorithm, 'k', 1)).resolves.toBeUndefined()
  })

  it("an idle connection killed by the server (the pool's 'error' event) opens the circuit, and the pool survives it", async () => {
    const pool = new pg.Pool({ ...SHARED_POSTGRES, max: 1 }) // no 'error' listener of its own: the store's keeps it alive
    const store = new PostgresStore({ pool, schema: db.schema, failMode: 'closed', cooldownMs: 60_000 })
    const pid = (await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid as number
    expect(store.degraded).toBe(false)
    const lost = new Promise((resolve) => pool.once('error', resolve))
    await db.pool.query('SELECT pg_terminate_backend($1)', [pid])
    await lost
    expect(store.degraded).toBe(true)
    expect((await store.consume(algorithm, 'k', 1)).source).toBe('fail-closed')
    await store.close()
    await pool.end()
  })
})
