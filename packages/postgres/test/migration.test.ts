import { readFileSync } from 'node:fs'
import { fixedWindow, RateLimitConfigError } from '@floodgate/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MIGRATION_SQL, migrate, migrationSql, PostgresStore } from '../src/index.js'
import { sharedPool, testSchemaName } from './helpers/database.js'

// The migration on the shared PostgreSQL, each test in schemas of its own, dropped afterwards.
const pool = sharedPool()
const made: string[] = []
const newSchema = () => {
  const name = testSchemaName()
  made.push(name)
  return name
}
const window = fixedWindow({ limit: 5, window: '1h' })

afterAll(async () => {
  for (const schema of made) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await pool.end()
})

const persistence = async (schema: string, table = 'floodgate') =>
  (
    await pool.query(
      `SELECT relpersistence FROM pg_class WHERE oid = format('%I.%I', $1::text, $2::text)::regclass`,
      [schema, table],
    )
  ).rows[0].relpersistence as string
const publicObjects = async () =>
  (await pool.query(`SELECT count(*)::int AS n FROM pg_class WHERE relnamespace = 'public'::regnamespace`))
    .rows[0].n as number

describe('migration', () => {
  let publicBefore: number
  beforeAll(async () => {
    publicBefore = await publicObjects()
  })

  it('sql/floodgate.sql, written by the build, is the migration for public.floodgate', () => {
    const file = readFileSync(new URL('../sql/floodgate.sql', import.meta.url), 'utf8')
    expect(file).toBe(MIGRATION_SQL)
    expect(MIGRATION_SQL).toBe(migrationSql({ schema: 'public', table: 'floodgate', unlogged: false }))
  })

  it('creates the table, its index and the functions; a store works on them', async () => {
    const schema = newSchema()
    await migrate(pool, { schema })
    const { rows } = await pool.query(
      `SELECT p.proname FROM pg_proc p WHERE p.pronamespace = $1::regnamespace ORDER BY 1`,
      [schema],
    )
    expect(rows.map((r) => r.proname)).toEqual([
      'floodgate_bucket',
      'floodgate_calendar_quota',
      'floodgate_concurrency',
      'floodgate_consume_all',
      'floodgate_consume_banned',
      'floodgate_consume_batch',
      'floodgate_days_from_civil',
      'floodgate_decide',
      'floodgate_fixed_window',
      'floodgate_gcra',
      'floodgate_reset',
      'floodgate_sliding_window_counter',
      'floodgate_sliding_window_log',
      'floodgate_sweep',
    ])
    const index = await pool.query(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = $2`,
      [schema, 'floodgate_expires_at'],
    )
    expect(index.rows[0].indexdef).toContain('(expires_at)')
    expect(await persistence(schema)).toBe('p')
    const store = new PostgresStore({ pool, schema })
    expect(await store.consume(window, 'k', 2)).toMatchObject({
      allowed: true,
      remaining: 3,
      source: 'postgres',
    })
  })

  it('is idempotent and keeps the rows; run again with unlogged it converts the table, and back', async () => {
    const schema = newSchema()
    await migrate(pool, { schema })
    const store = new PostgresStore({ pool, schema })
    await store.consume(window, 'kept', 2)
    await migrate(pool, { schema })
    await migrate(pool, { schema, unlogged: true })
    expect(await persistence(schema)).toBe('u')
    expect((await store.peek(window, 'kept', 1)).remaining).toBe(3)
    await migrate(pool, { schema })
    expect(await persistence(schema)).toBe('p')
    expect((await store.peek(window, 'kept', 1)).remaining).toBe(3)
  })

  it('concurrent migrations of one schema wait for each other instead of failing', async () => {
    const schema = newSchema()
    await Promise.all(Array.from({ length: 3 }, () => migrate(pool, { schema })))
    expect(await persistence(schema)).toBe('p')
  })

  it('takes another table name; two tables in one schema keep apart', async () => {
    const schema = newSchema()
    await migrate(pool, { schema })
    await migrate(pool, { schema, table: 'api_limits', unlogged: true })
    expect(await persistence(schema, 'api_limits')).toBe('u')
    const a = new PostgresStore({ pool, schema })
    const b = new PostgresStore({ pool, schema, table: 'api_limits' })
    await a.consume(window, 'k', 5)
    expect((await b.peek(window, 'k', 1)).remaining).toBe(5)
  })

  it('never touches public when given a schema', async () => {
    expect(await publicObjects()).toBe(publicBefore)
  })

  it('a store on a schema nobody migrated says so (onError, and the error it rejects with), and does not open its circuit', async () => {
    const errors: Error[] = []
    const store = new PostgresStore({
      pool,
      schema: 'floodgate_nowhere',
      onError: (error) => errors.push(error),
    })
    await expect(store.consume(window, 'k', 1)).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_POSTGRES_NOT_MIGRATED',
    })
    expect(errors[0]).toMatchObject({ code: 'ERR_FLOODGATE_POSTGRES_NOT_MIGRATED' })
    expect(errors[0]!.message).toContain(
      "run migrate(pool, { schema: 'floodgate_nowhere', table: 'floodgate' })",
    )
    expect(store.degraded).toBe(false)
  })

  it('rejects bad names with a RateLimitConfigError, before any SQL is sent', async () => {
    const error = (() => {
      try {
        migrationSql({ schema: 'Robert"); DROP TABLE students;--' })
      } catch (e) {
        return e as RateLimitConfigError
      }
    })()
    expect(error).toBeInstanceOf(RateLimitConfigError)
    expect(error!.option).toBe('migrationSql.schema')
    expect(() => migrationSql({ table: 'x'.repeat(41) })).toThrow(/at most 40/)
    await expect(migrate(pool, { unlogged: 'yes' as never })).rejects.toBeInstanceOf(RateLimitConfigError)
  })
})
