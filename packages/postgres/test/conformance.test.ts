import { type Algorithm, type ConsumeItem, type Decision, fixedWindow, type Store } from '@floodgate/core'
import { bounded } from '@floodgate/test-harness'
import { type StoreUnderTest, testStore } from '@floodgate/testing'
import { PostgresStore, type PostgresStoreOptions } from '../src/index.js'
import { type TestSchema, testSchema } from './helpers/database.js'

const schemas = new Map<Store, TestSchema>()

/** A PostgresStore on a schema of its own (dropped afterwards), deciding with the time the suite passes. */
function postgresStore(
  options: { unlogged?: boolean } & Partial<PostgresStoreOptions> = {},
  wrap: (store: PostgresStore) => Store = (store) => store,
): Pick<StoreUnderTest, 'create' | 'destroy'> {
  const { unlogged, ...storeOptions } = options
  return {
    async create() {
      const db = await testSchema({ unlogged, pool: { max: 8 } })
      const store = wrap(
        bounded(new PostgresStore({ pool: db.pool, schema: db.schema, ...storeOptions }), 5000),
      )
      schemas.set(store, db)
      return store
    },
    async destroy(store) {
      await store.close()
      await schemas.get(store)?.drop()
    },
  }
}

const padding = fixedWindow({ limit: 1e9, window: '1h' })

/**
 * The store with every consume and consumeAll asked in the same tick as a consume of a key of its own, so
 * that each goes to PostgreSQL in a batch of two requests (`floodgate_consume_batch`), never with the lone
 * request's statement: the suite's worked examples and random sequences then check the batch function.
 */
function everyDecisionBatched(store: PostgresStore): Store {
  const pad = (now: number | undefined) => store.consume(padding, 'padding', 1, now)
  return {
    consume: (algorithm: Algorithm, key: string, cost: number, now?: number): Promise<Decision> =>
      Promise.all([store.consume(algorithm, key, cost, now), pad(now)]).then(([decision]) => decision),
    consumeAll: (items: readonly ConsumeItem[], now?: number): Promise<Decision[]> =>
      Promise.all([store.consumeAll(items, now), pad(now)]).then(([decisions]) => decisions),
    peek: (algorithm, key, cost, now) => store.peek(algorithm, key, cost, now),
    refund: (algorithm, key, cost, now) => store.refund(algorithm, key, cost, now),
    charge: (algorithm, key, cost, now) => store.charge(algorithm, key, cost, now),
    release: (algorithm, key, lease, now) => store.release(algorithm, key, lease, now),
    reset: (algorithm, key) => store.reset(algorithm, key),
    unban: (key) => store.unban(key),
    close: () => store.close(),
  }
}

testStore({ name: 'PostgresStore', ...postgresStore() })
testStore({ name: 'PostgresStore (batch: false)', ...postgresStore({ batch: false }) })
testStore({
  name: 'PostgresStore, every decision in a batch of two requests',
  ...postgresStore({}, everyDecisionBatched),
})
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
testStore({
  name: "PostgresStore on the database's clock, every decision in a batch of two requests",
  ...postgresStore({}, everyDecisionBatched),
  time: 'own',
})
