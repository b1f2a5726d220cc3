import { fixedWindow } from '@floodgate/core'
import { recordingSink } from '@floodgate/test-harness'
import { describe, expect, it } from 'vitest'
import { PostgresStore } from '../src/index.js'
import { schemaForTests, testSchema } from './helpers/database.js'

// What a PostgresStore reports through its `metrics` option, against the real PostgreSQL: each statement's
// duration by operation, and, with its decision function dropped, the error reply and the fail mode. Counts
// only: no assertion on how long anything took.
const db = schemaForTests({ pool: { max: 2 } })
const algorithm = fixedWindow({ limit: 2, window: '1m' })
const store = 'postgres'

describe('PostgresStore metrics', () => {
  it('times every statement by operation; the circuit closed, read when collected, until the store closes', async () => {
    const sink = recordingSink()
    const postgres = new PostgresStore({ pool: db.pool, schema: db.schema, metrics: sink, sweep: false })
    await postgres.consume(algorithm, 'k', 1)
    await postgres.peek(algorithm, 'k', 1)
    await postgres.refund(algorithm, 'k', 1)
    await postgres.reset(algorithm, 'k')
    await postgres.consumeAll([
      { algorithm, key: 'a', cost: 1 },
      { algorithm, key: 'b', cost: 1 },
    ])
    await postgres.sweep()
    for (const operation of ['consume', 'peek', 'refund', 'reset', 'consume_all', 'sweep']) {
      expect(sink.observations('floodgate.store.duration', { store, operation }), operation).toHaveLength(1)
    }
    expect(sink.gaugeValue('floodgate.circuit.open', { store })).toBe(0)
    await postgres.close()
    expect(sink.gaugeValue('floodgate.circuit.open', { store })).toBeUndefined()
  })

  it('an error reply counts as a reply error, and the fail mode takes the decision', async () => {
    const other = await testSchema({ pool: { max: 1 } })
    try {
      await other.pool.query(`DROP FUNCTION "${other.schema}".floodgate_decide`)
      const sink = recordingSink()
      const postgres = new PostgresStore({
        pool: other.pool,
        schema: other.schema,
        failMode: 'closed',
        metrics: sink,
        sweep: false,
        onError: () => {},
      })
      expect((await postgres.consume(algorithm, 'k', 1)).source).toBe('fail-closed')
      expect(sink.count('floodgate.store.errors', { store, kind: 'reply' })).toBe(1)
      expect(sink.count('floodgate.fail_mode', { store, mode: 'closed' })).toBe(1)
      expect(sink.gaugeValue('floodgate.circuit.open', { store })).toBe(0) // an error reply is no outage
      await postgres.close()
    } finally {
      await other.drop()
    }
  })
})
