import { fixedWindow } from '@floodgate/core'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { PostgresStore, type PostgresStoreOptions } from '../src/index.js'
import { SHARED_POSTGRES, schemaForTests } from './helpers/database.js'

// Expired rows are deleted in bounded batches, skipping rows a decision holds; under a flood of unique keys
// the table stays bounded. Rows expire by the database's clock: a 1 ms window with no grace makes every row
// expire about 1 ms after it is written, so the floods below need no waiting.
const brief = fixedWindow({ limit: 5, window: 1 })
const lasting = fixedWindow({ limit: 5, window: '1h' })

const db = schemaForTests({ pool: { max: 6 } })

const rows = async (where = 'true') =>
  (await db.pool.query(`SELECT count(*)::int AS n FROM "${db.schema}".floodgate WHERE ${where}`)).rows[0]
    .n as number
const clear = () => db.pool.query(`TRUNCATE "${db.schema}".floodgate`)
const store = (options: Partial<PostgresStoreOptions> = {}) =>
  new PostgresStore({ pool: db.pool, schema: db.schema, expiryGraceMs: 0, ...options })

/** Wait until the database's clock has passed every row's expiry (a few ms here). */
async function untilAllExpired(where = 'true') {
  const sql = `SELECT count(*)::int AS n FROM "${db.schema}".floodgate
    WHERE ${where} AND expires_at >= (extract(epoch FROM clock_timestamp()) * 1000)::float8`
  while ((await db.pool.query(sql)).rows[0].n > 0) await new Promise((r) => setTimeout(r, 5))
}

/** `keys` unique keys, `inFlight` at a time, sampling the table's size every `sampleEvery` decisions. */
async function flood(s: PostgresStore, keys: number, inFlight = 4, sampleEvery = 250) {
  const sizes: number[] = []
  let next = 0
  const worker = async () => {
    while (next < keys) {
      const i = next++
      expect((await s.consume(brief, `flood-${i}`, 1)).source).toBe('postgres')
      if (i % sampleEvery === 0) sizes.push(await rows())
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  await s.close() // waits for the sweep in progress
  return sizes
}

describe('expired rows', () => {
  it('a flood of unique keys leaves the table bounded by the sweep, where without sweeping it keeps every key', async () => {
    await clear()
    const sizes = await flood(store({ sweep: { every: 100, batch: 200 } }), 3000)
    expect(Math.max(...sizes)).toBeLessThanOrEqual(400)
    expect(await rows()).toBeLessThanOrEqual(400)

    await clear()
    await flood(store({ sweep: false }), 1000)
    expect(await rows()).toBe(1000)
  }, 60_000)

  it('sweep() deletes only expired rows, at most a batch at a time, the longest expired first, and skips a held row', async () => {
    await clear()
    const s = store({ sweep: false })
    for (let i = 0; i < 30; i++) await s.consume(brief, `old-${i}`, 1)
    for (let i = 0; i < 10; i++) await s.consume(lasting, `live-${i}`, 1)
    await untilAllExpired(`algorithm = '${brief.id}'`)

    const holder = new pg.Client(SHARED_POSTGRES)
    await holder.connect()
    await holder.query('BEGIN')
    await holder.query(`SELECT FROM "${db.schema}".floodgate WHERE key = 'old-29' FOR UPDATE`)
    try {
      expect(await s.sweep({ batch: 12 })).toBe(12)
      // The longest expired go first: old-0 .. old-11 were written first.
      expect(await rows(`key IN ('old-0', 'old-11')`)).toBe(0)
      expect(await s.sweep({ batch: 12 })).toBe(12)
      expect(await s.sweep({ batch: 12 })).toBe(5) // old-29 is held: skipped, never waited for
      expect(await s.sweep({ batch: 12 })).toBe(0)
    } finally {
      await holder.query('ROLLBACK')
      await holder.end()
    }
    expect(await s.sweep({ batch: 12 })).toBe(1)
    expect(await rows()).toBe(10) // the live keys stay
    expect((await s.peek(lasting, 'live-0', 1)).remaining).toBe(4)
  })

  it('a state that is fresh again is deleted at once, and a refused request writes no row', async () => {
    await clear()
    const s = store({ sweep: false })
    const small = fixedWindow({ limit: 2, window: '1h' })
    await s.consume(small, 'refunded', 2)
    await s.refund(small, 'refunded', 2)
    expect(await rows()).toBe(0)
    expect((await s.consume(small, 'too-big', 3)).allowed).toBe(false)
    expect(await rows()).toBe(0)
  })
})
