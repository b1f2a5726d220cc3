import {
  type Algorithm,
  type ConsumeItem,
  createLimiter,
  type Decision,
  fixedWindow,
  gcra,
  MemoryStore,
  slidingWindowCounter,
  tokenBucket,
} from '@floodgate/core'
import { watchUnhandled } from '@floodgate/test-harness'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type PostgresClient,
  type PostgresDecision,
  type PostgresPool,
  PostgresStore,
  PostgresStoreError,
  type PostgresStoreOptions,
  type StoreQuery,
} from '../src/index.js'
import { SHARED_POSTGRES, type TestSchema, testSchema } from './helpers/database.js'

// Same-tick batching on the shared PostgreSQL: many decisions asked for in one tick go as few statements
// (counted on the wire: each statement a real pg client sends, by the function it calls), and each is decided
// on its own: no more admitted than each key's limit, one request's policies all or none, one request's
// refusal changing nothing of another's. A batch statement whose backend is terminated mid-statement rejects
// each of its callers with the store error, and a limiter over the store applies its fail mode to each request.
const unhandled = watchUnhandled()
let db: TestSchema
let admin: pg.Client
beforeAll(async () => {
  db = await testSchema({ pool: { max: 4 } })
  admin = new pg.Client(SHARED_POSTGRES)
  await admin.connect()
})
afterAll(async () => {
  await admin?.end()
  await db?.drop()
})

const NOW = Date.UTC(2026, 0, 1, 12, 0, 30)
let stores = 0

/** The function each statement sent calls (`decide`, `consume_all`, `consume_batch`, ...), in order. */
type Sent = string[]

/** `pool`, with every statement its clients send recorded (by the function it calls) before it goes. */
function recorded(pool: pg.Pool, sent: Sent): PostgresPool {
  return {
    connect(callback) {
      pool.connect((error, client, release) => {
        if (!client) return callback(error, undefined, release)
        const recording: PostgresClient = {
          query(query: StoreQuery, done) {
            sent.push(/\.\s*"floodgate_(\w+)"\(/.exec(query.text)?.[1] ?? query.text)
            client.query(query, done as never)
          },
        }
        callback(error, recording, release)
      })
    },
    on: (event, listener) => pool.on(event, listener),
    removeListener: (event, listener) => pool.removeListener(event, listener),
  }
}

/** A store on this file's schema, under a prefix of its own, with the statements it sends. */
function storeOf(options: Partial<PostgresStoreOptions> = {}) {
  const sent: Sent = []
  const store = new PostgresStore({
    pool: recorded(db.pool, sent),
    schema: db.schema,
    sweep: false,
    ...options,
  })
  store.answerWithin(20_000)
  const prefix = `s${stores++}:`
  const count = (fn: string) => sent.filter((s) => s === fn).length
  return { store, sent, count, key: (k: string) => prefix + k }
}

/** The backend of this schema's batch statement once it waits for a lock (polled; the test's timeout bounds it). */
async function waitingBatch(): Promise<number> {
  for (;;) {
    const { rows } = await admin.query(
      `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock'
         AND query LIKE '%floodgate_consume_batch%' AND query LIKE $1`,
      [`%"${db.schema}"%`],
    )
    if (rows[0]) return rows[0].pid as number
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const ALGORITHMS: Algorithm[] = [
  fixedWindow({ limit: 7, window: '1h' }),
  slidingWindowCounter({ limit: 7, window: '1h' }),
  tokenBucket({ capacity: 7, refillRate: 1, interval: '1h' }),
  gcra({ rate: 1, period: '1h', burst: 7 }),
]

describe('same-tick batching (PostgreSQL)', () => {
  it('1,200 decisions in one tick on 40 keys and 4 algorithms: exactly each limit admitted, in ceil(1,200 / 128) statements', async () => {
    const { store, sent, key } = storeOf()
    const asked: { key: string; algorithm: Algorithm }[] = []
    for (let round = 0; round < 30; round++)
      for (let k = 0; k < 10; k++)
        for (const algorithm of ALGORITHMS) asked.push({ key: key(`user-${k}`), algorithm })
    const decisions = await Promise.all(asked.map((a) => store.consume(a.algorithm, a.key, 1, NOW)))
    expect(decisions.every((d) => d.source === 'postgres')).toBe(true)
    const admitted = new Map<string, number>()
    decisions.forEach((d, i) => {
      const id = `${asked[i]!.algorithm.kind}:${asked[i]!.key}`
      if (d.allowed) admitted.set(id, (admitted.get(id) ?? 0) + 1)
    })
    expect(admitted.size).toBe(40)
    expect([...admitted.values()].every((n) => n === 7)).toBe(true)
    // Refusals carry the exact wait, as one statement per decision gives it: the fixed window's is to its end.
    const refused = decisions.filter((d, i) => !d.allowed && asked[i]!.algorithm === ALGORITHMS[0])
    expect(refused).toHaveLength(230)
    expect(refused.every((d) => d.retryAfterMs === 3_570_000 && d.remaining === 0)).toBe(true)
    // The ten statements go out together, each on a connection of the pool.
    expect(sent).toEqual(Array(Math.ceil(asked.length / 128)).fill('consume_batch'))
  })

  it('requests of one tick stay apart: a refused request spends nothing, and changes nothing of the next', async () => {
    const { store, sent, key } = storeOf()
    const wide = fixedWindow({ limit: 5, window: '1h' })
    const narrow = fixedWindow({ limit: 1, window: '1h' })
    const both = (cost: number): ConsumeItem[] => [
      { algorithm: wide, key: key('alice'), cost: 1 },
      { algorithm: narrow, key: key('alice'), cost },
    ]
    const [refused, admitted, alone] = await Promise.all([
      store.consumeAll(both(2), NOW), // the narrow policy can never take 2: refused as a whole
      store.consumeAll(both(1), NOW), // decided after it in the same statement: both policies pass
      store.consume(wide, key('alice'), 1, NOW),
    ])
    expect(sent).toEqual(['consume_batch'])
    expect(refused.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 5], // a refused request's items are answered with their peeks
      [false, 1],
    ])
    expect(admitted.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 4],
      [true, 0],
    ])
    expect([alone.allowed, alone.remaining]).toEqual([true, 3])
    expect((await store.peek(wide, key('alice'), 1, NOW)).remaining).toBe(3)
  })

  it('a refused request on keys with no row yet leaves no row behind; a key decided twice is written once, with its last state', async () => {
    const { store, key } = storeOf()
    const algorithm = fixedWindow({ limit: 3, window: '1h' })
    const bucket = tokenBucket({ capacity: 3, refillRate: 1, interval: '1s' })
    const rows = async () =>
      (
        await db.pool.query(`SELECT key FROM "${db.schema}".floodgate WHERE key LIKE $1 ORDER BY key`, [
          key('%'),
        ])
      ).rows.map((r) => r.key as string)
    const [refused, taken, early, late] = await Promise.all([
      store.consumeAll(
        [
          { algorithm, key: key('new-a'), cost: 1 },
          { algorithm, key: key('new-b'), cost: 4 },
        ],
        NOW,
      ),
      store.consume(algorithm, key('new-c'), 1, NOW),
      store.consume(bucket, key('bucket'), 3, NOW),
      store.consume(bucket, key('bucket'), 1, NOW + 3_600_000),
    ])
    expect(refused.map((d) => d.allowed)).toEqual([true, false])
    expect(taken.allowed).toBe(true)
    expect([early.allowed, early.remaining, late.allowed, late.remaining]).toEqual([true, 0, true, 2])
    expect(await rows()).toEqual([key('bucket'), key('new-c')])
    expect((await store.peek(bucket, key('bucket'), 1, NOW + 3_600_000)).remaining).toBe(2)
    const { rows: versions } = await db.pool.query(
      `SELECT count(*)::int AS n FROM "${db.schema}".floodgate WHERE key = $1`,
      [key('bucket')],
    )
    expect(versions[0].n).toBe(1)
  })

  it('each request keeps its own time: the same key at two times in one statement', async () => {
    const { store, sent, key } = storeOf()
    const algorithm = fixedWindow({ limit: 1, window: '1h' })
    const [a, b, c] = await Promise.all([
      store.consume(algorithm, key('k'), 1, NOW),
      store.consume(algorithm, key('k'), 1, NOW + 1000),
      store.consume(algorithm, key('k'), 1, NOW + 3_600_000),
    ])
    expect(sent).toEqual(['consume_batch'])
    expect([a.allowed, b.allowed, b.retryAfterMs, c.allowed]).toEqual([true, false, 3_569_000, true])
  })

  it("without a time, every request of a statement is decided on the database's clock", async () => {
    const { store, sent, key } = storeOf()
    const algorithm = fixedWindow({ limit: 2, window: '1h' })
    const decisions = await Promise.all(
      Array.from({ length: 5 }, () => store.consume(algorithm, key('db'), 1)),
    )
    expect(sent).toEqual(['consume_batch'])
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false, false, false])
    // One clock reading for the statement: every refusal waits for the same window's end.
    expect(new Set(decisions.slice(2).map((d) => d.retryAfterMs)).size).toBe(1)
    const { rows } = await db.pool.query(
      `SELECT 3600000 - (date_part('epoch', clock_timestamp()) * 1000)::numeric % 3600000 AS left`,
    )
    expect(decisions[2]!.retryAfterMs).toBeGreaterThanOrEqual(Number(rows[0].left))
  })

  it('batch: { maxSize: 8 } sends 100 same-tick decisions as 13 statements; batch: false as 100', async () => {
    const algorithm = fixedWindow({ limit: 1000, window: '1h' })
    const fire = (store: PostgresStore, key: (k: string) => string) =>
      Promise.all(Array.from({ length: 100 }, (_, i) => store.consume(algorithm, key(`k${i % 30}`), 1, NOW)))
    const small = storeOf({ batch: { maxSize: 8 } })
    expect((await fire(small.store, small.key)).every((d) => d.allowed && d.source === 'postgres')).toBe(true)
    expect(small.sent).toEqual(Array(13).fill('consume_batch'))
    const unbatched = storeOf({ batch: false })
    expect(
      (await fire(unbatched.store, unbatched.key)).every((d) => d.allowed && d.source === 'postgres'),
    ).toBe(true)
    expect(unbatched.sent).toEqual(Array(100).fill('decide'))
    // Both counted every decision once: 100 over 30 keys.
    for (const { store, key } of [small, unbatched]) {
      const left = await Promise.all(
        Array.from({ length: 30 }, (_, k) => store.peek(algorithm, key(`k${k}`), 1, NOW)),
      )
      expect(left.reduce((sum, d) => sum + (1000 - d.remaining), 0)).toBe(100)
    }
  })

  it('a decision alone in its tick goes with its own statement, and a request of many items is never split', async () => {
    const { store, sent, key } = storeOf({ batch: { maxSize: 4 } })
    const algorithm = fixedWindow({ limit: 10, window: '1h' })
    expect((await store.consume(algorithm, key('solo'), 1, NOW)).remaining).toBe(9)
    expect(sent).toEqual(['decide'])
    const items = Array.from({ length: 6 }, (_, i) => ({ algorithm, key: key(`big-${i}`), cost: 1 }))
    const [big, smallOne] = await Promise.all([
      store.consumeAll(items, NOW),
      store.consume(algorithm, key('solo'), 1, NOW),
    ])
    expect(big.every((d) => d.allowed && d.remaining === 9)).toBe(true)
    expect(smallOne.remaining).toBe(8)
    // Six items over maxSize 4 go as one statement of their own (the consume-all function); the lone consume
    // after them as another.
    expect(sent).toEqual(['decide', 'consume_all', 'decide'])
    // Two requests in one tick within the bound share one.
    await Promise.all([
      store.consumeAll(items.slice(0, 2), NOW),
      store.consume(algorithm, key('solo'), 1, NOW),
    ])
    expect(sent.slice(3)).toEqual(['consume_batch'])
  })

  it('two stores batching the same keys in opposite orders at once never deadlock, and count exactly', async () => {
    const algorithm = fixedWindow({ limit: 50, window: '1h' })
    const [one, two] = [storeOf(), storeOf()]
    const keys = Array.from({ length: 20 }, (_, i) => one.key(`shared-${i}`))
    const fire = (store: PostgresStore, order: string[]) =>
      Promise.all(
        order.flatMap((k) => [store.consume(algorithm, k, 1, NOW), store.consume(algorithm, k, 1, NOW)]),
      )
    const decided: Decision[] = []
    for (let round = 0; round < 20; round++) {
      const both = await Promise.all([fire(one.store, keys), fire(two.store, [...keys].reverse())])
      decided.push(...both.flat())
    }
    expect(decided.every((d) => (d as PostgresDecision).source === 'postgres')).toBe(true)
    // 20 rounds x 2 stores x 2 = 80 asks per key against a limit of 50.
    expect(decided.filter((d) => d.allowed)).toHaveLength(20 * 50)
  })

  it('a batch whose backend is terminated mid-statement rejects each of its callers with the store error; a limiter over the store applies its fail mode to each', async () => {
    const algorithm = fixedWindow({ limit: 3, window: '1h' })
    const errors: [string, string][] = []
    const { store, sent, key } = storeOf({
      cooldownMs: 60_000,
      onError: (_error, event) => errors.push([event.operation, event.key]),
    })
    const limiter = createLimiter({
      store,
      algorithm,
      prefix: key('limited'),
      failMode: { fallback: new MemoryStore() },
      storeTimeout: 20_000,
    })
    // The batch waits for a row another session holds, so that it is surely mid-statement when its backend
    // is terminated.
    expect((await store.consume(algorithm, key('held'), 1, NOW)).source).toBe('postgres')
    const holder = new pg.Client(SHARED_POSTGRES)
    await holder.connect()
    try {
      await holder.query('BEGIN')
      await holder.query(`SELECT FROM "${db.schema}".floodgate WHERE key = $1 FOR UPDATE`, [key('held')])
      const direct = Promise.allSettled([
        store.consume(algorithm, key('held'), 1, NOW),
        ...Array.from({ length: 4 }, (_, i) => store.consume(algorithm, key(i < 2 ? 'a' : 'b'), 1, NOW)),
        store.consumeAll(
          [
            { algorithm, key: key('a'), cost: 1 },
            { algorithm, key: key('c'), cost: 1 },
          ],
          NOW,
        ),
      ])
      const limited = Promise.all(Array.from({ length: 10 }, (_, i) => limiter.consume(i < 5 ? 'x' : 'y')))
      await admin.query('SELECT pg_terminate_backend($1)', [await waitingBatch()])
      const [settled, decisions] = await Promise.all([direct, limited])
      // One statement for the sixteen requests, terminated.
      expect(sent).toEqual(['decide', 'consume_batch'])
      for (const result of settled) {
        expect(result.status).toBe('rejected')
        const reason = (result as PromiseRejectedResult).reason
        expect(reason).toBeInstanceOf(PostgresStoreError)
        expect(reason.code).toBe('ERR_FLOODGATE_POSTGRES_UNAVAILABLE')
      }
      // Each caller was told, with its own key.
      expect(errors.filter(([, k]) => !k.startsWith(key('limited'))).sort()).toEqual(
        [
          ['consume', key('held')],
          ['consume', key('a')],
          ['consume', key('a')],
          ['consume', key('b')],
          ['consume', key('b')],
          ['consumeAll', key('a')],
        ].sort(),
      )
      // The limiter's fallback store decided each request on its own: 3 of each key's 5.
      expect(decisions.every((d) => (d as { source?: string }).source === 'fallback')).toBe(true)
      expect(decisions.map((d) => d.allowed)).toEqual([
        true,
        true,
        true,
        false,
        false,
        true,
        true,
        true,
        false,
        false,
      ])
      expect(store.degraded).toBe(true)
    } finally {
      await holder.end()
    }
    // Nothing of the terminated statement was written.
    const fresh = new PostgresStore({ pool: db.pool, schema: db.schema })
    for (const k of ['a', 'b', 'c']) expect((await fresh.peek(algorithm, key(k), 1, NOW)).remaining).toBe(3)
    expect((await fresh.peek(algorithm, key('held'), 1, NOW)).remaining).toBe(2)
    expect(unhandled).toEqual([])
  })

  it('a batch whose statement fails with an error reply rejects each caller, and leaves the circuit closed', async () => {
    const other = await testSchema({ pool: { max: 1 } })
    try {
      await other.pool.query(`DROP FUNCTION "${other.schema}".floodgate_consume_batch`)
      const errors: string[] = []
      const store = new PostgresStore({
        pool: other.pool,
        schema: other.schema,
        onError: (error) => errors.push((error as { code?: string }).code ?? ''),
      })
      const algorithm = fixedWindow({ limit: 3, window: '1h' })
      const settled = await Promise.allSettled(
        Array.from({ length: 3 }, (_, i) => store.consume(algorithm, `k${i}`, 1, NOW)),
      )
      expect(settled.map((r) => (r as PromiseRejectedResult).reason?.code)).toEqual(
        Array(3).fill('ERR_FLOODGATE_POSTGRES_NOT_MIGRATED'),
      )
      expect(errors).toEqual(Array(3).fill('ERR_FLOODGATE_POSTGRES_NOT_MIGRATED'))
      expect(store.degraded).toBe(false)
      // A decision alone still uses the one-key function, which is there.
      expect((await store.consume(algorithm, 'k0', 1, NOW)).source).toBe('postgres')
    } finally {
      await other.drop()
    }
  })
})
