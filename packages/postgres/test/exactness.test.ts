import { slidingWindowCounter } from '@floodgate/core'
import { exactnessCases, type Fleet, fireAtOnce, forkFixture } from '@floodgate/test-harness'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostgresStore } from '../src/index.js'
import type { FireOrder } from './fixtures/fire.js'
import { SHARED_POSTGRES, type TestSchema, testSchema } from './helpers/database.js'

// Four separate Node processes (four "API servers"), each with its own pool, firing 250 concurrent requests at
// one key whose limit is 100: the store must admit exactly 100 in total. The child is bundled from
// fixtures/fire.ts (the store's TypeScript sources, no build needed) into node_modules, where it finds pg.
const PROCESSES = 4
const REQUESTS = 250
const LIMIT = 100
let db: TestSchema
let fleet: Fleet

beforeAll(async () => {
  db = await testSchema()
  fleet = await forkFixture({
    entry: new URL('./fixtures/fire.ts', import.meta.url),
    external: ['pg', 'zod'],
    size: PROCESSES,
  })
  await fleet.replies() // each says when it has loaded
}, 60_000)

afterAll(async () => {
  await fleet?.stop()
  await db?.drop()
})

/**
 * Arm every process with its 250 requests, then fire them all at once; count the admissions. With `pairs`,
 * through consumeAll, half the processes giving the two keys in the opposite order.
 */
function fire(order: Pick<FireOrder, 'kind' | 'key' | 'now'> & { pairs?: boolean }) {
  const { pairs, ...rest } = order
  return fireAtOnce<FireOrder>(fleet, (i) => ({
    connection: { ...SHARED_POSTGRES, max: 5 },
    schema: db.schema,
    limit: LIMIT,
    requests: REQUESTS,
    ...rest,
    pair: pairs ? (i % 2 === 0 ? 'forward' : 'reversed') : undefined,
  }))
}

describe(`exactness: ${PROCESSES} processes x ${REQUESTS} concurrent requests, limit ${LIMIT}`, () => {
  for (const { kind, now } of exactnessCases) {
    it(`${kind}: exactly ${LIMIT} admitted`, async () => {
      const result = await fire({ kind, key: `exact-${kind}`, now })
      expect(result.notFromStore).toBe(0)
      expect(result.admitted).toBe(LIMIT)
    }, 30_000)
  }

  it('consumeAll over two keys, given in opposite orders by half the processes: exactly 100, no deadlock', async () => {
    const result = await fire({ kind: 'token-bucket', key: 'exact-pair', pairs: true })
    expect(result.notFromStore).toBe(0)
    expect(result.admitted).toBe(LIMIT)
    const wide = await db.pool.query(
      `SELECT state[2] AS count FROM "${db.schema}".floodgate WHERE key = 'exact-pair:wide'`,
    )
    expect(wide.rows).toEqual([{ count: 100 }]) // the refused 900 spent nothing in the wider policy
  }, 30_000)

  it('sliding-window-counter: the bound, limit - prev x (1 - elapsed/window), holds exactly under concurrency', async () => {
    // 100 admitted in the last minute of the previous hour; at 12:30 the previous window weighs 1/2, so the
    // estimate leaves room for exactly 50 more: the counter's approximation, not a concurrency error.
    const store = new PostgresStore({ pool: db.pool, schema: db.schema, failMode: 'closed' })
    const algorithm = slidingWindowCounter({ limit: LIMIT, window: '1h' })
    expect((await store.consume(algorithm, 'bound-swc', 100, Date.UTC(2026, 0, 1, 11, 59))).allowed).toBe(
      true,
    )
    const result = await fire({
      kind: 'sliding-window-counter',
      key: 'bound-swc',
      now: Date.UTC(2026, 0, 1, 12, 30),
    })
    expect(result.admitted).toBe(50)
    await store.close()
  }, 30_000)
})
