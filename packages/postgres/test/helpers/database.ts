import { randomBytes } from 'node:crypto'
import { fixedWindow } from '@floodgate/core'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'
import { migrate, PostgresStore } from '../../src/index.js'

/** The machine's PostgreSQL, as the CI script starts it. */
export const SHARED_POSTGRES = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' } as const

const HOW_TO_GET_POSTGRES =
  'Install it (`apt-get install postgresql`), start it (`pg_ctlcluster 15 main start`), and create the ' +
  'database (`createdb -h 127.0.0.1 -U postgres test`); the user postgres needs trust auth on 127.0.0.1.'

/** A pool on the shared PostgreSQL; small, since every test file and process shares the server's connections. */
export function sharedPool(options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ ...SHARED_POSTGRES, max: 4, ...options })
  pool.on('error', () => {}) // an idle connection lost; the store under test sees it too
  return pool
}

/** A schema name unique to this process and call: `floodgate_test_<pid>_<random>`. */
export const testSchemaName = () => `floodgate_test_${process.pid}_${randomBytes(4).toString('hex')}`

/** A schema of its own on the shared PostgreSQL, migrated; `drop()` removes it and all it holds. */
export interface TestSchema {
  readonly pool: pg.Pool
  readonly schema: string
  drop(): Promise<void>
}

/**
 * Create and migrate a schema of this test file's own on the shared PostgreSQL (127.0.0.1:5432, user
 * postgres, database test), or fail with how to get one: tests never skip. Nothing outside the schema is
 * touched; `drop()` (in `afterAll`) drops it with everything in it and ends the pool.
 */
export async function testSchema(
  options: { unlogged?: boolean; pool?: pg.PoolConfig } = {},
): Promise<TestSchema> {
  const pool = sharedPool(options.pool)
  const schema = testSchemaName()
  try {
    await migrate(pool, { schema, unlogged: options.unlogged ?? false })
  } catch (error) {
    await pool.end()
    throw new Error(
      `These tests need PostgreSQL at ${SHARED_POSTGRES.host}:${SHARED_POSTGRES.port} (user ${SHARED_POSTGRES.user}, database ${SHARED_POSTGRES.database}): ${(error as Error).message}. ${HOW_TO_GET_POSTGRES}`,
    )
  }
  return {
    pool,
    schema,
    async drop() {
      try {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      } finally {
        await pool.end()
      }
    },
  }
}

/**
 * A schema of its own for the tests of the enclosing file or block: created by {@link testSchema} in
 * `beforeAll`, dropped in `afterAll`; its `pool` and `schema` from then on.
 */
export function schemaForTests(options: Parameters<typeof testSchema>[0] = {}): Omit<TestSchema, 'drop'> {
  let db: TestSchema | undefined
  beforeAll(async () => {
    db = await testSchema(options)
  })
  afterAll(async () => {
    await db?.drop()
  })
  const created = () => {
    if (!db) throw new Error('the schema is created in beforeAll: use it inside a test')
    return db
  }
  return {
    get pool() {
      return created().pool
    },
    get schema() {
      return created().schema
    },
  }
}

/**
 * Open every connection of the pool and compile the functions in each, so that a test that times decisions
 * measures the failure under test, not a cold connection (which can take 300 ms on a busy 2-core machine).
 */
export async function warmUp(pool: pg.Pool, schema: string): Promise<pg.Pool> {
  const store = new PostgresStore({ pool, schema })
  store.answerWithin(30_000)
  const algorithm = fixedWindow({ limit: 1_000_000, window: '1h' })
  const size = (pool as pg.Pool & { options: { max: number } }).options.max
  await Promise.all(Array.from({ length: size }, (_, i) => store.consume(algorithm, `warm-${i}`, 1)))
  await store.close()
  return pool
}
