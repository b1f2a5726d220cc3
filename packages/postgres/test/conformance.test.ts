import { type StoreUnderTest, testStore } from '@floodgate/testing'
import { PostgresStore, type PostgresStoreOptions } from '../src/index.js'
import { type TestSchema, testSchema } from './helpers/database.js'

const schemas = new Map<PostgresStore, TestSchema>()

/** A PostgresStore on a schema of its own (dropped afterwards), deciding with the time the suite passes. */
function postgresStore(
  options: { unlogged?: boolean } & Partial<PostgresStoreOptions> = {},
): Pick<StoreUnderTest<PostgresStore>, 'create' | 'destroy'> {
  const { unlogged, ...storeOptions } = options
  return {
    async create() {
      const db = await testSchema({ unlogged, pool: { max: 8 } })
      const store = new PostgresStore({
        pool: db.pool,
        schema: db.schema,
        failMode: 'closed',
        timeoutMs: 5000,
        ...storeOptions,
      })
      schemas.set(store, db)
      return store
    },
    async destroy(store) {
      await store.close()
      await schemas.get(store)?.drop()
    },
  }
}

testStore({ name: 'PostgresStore', ...postgresStore() })
testStore({
  name: 'PostgresStore (unlogged table, durable commits, sweeping after every decision)',
  ...postgresStore({ unlogged: true, synchronousCommit: true, sweep: { every: 1, batch: 10 } }),
  sequences: 4,
})
testStore({
  name: "PostgresStore on the database's clock (calls without a time)",
  ...postgresStore(),
  time: 'own',
})
