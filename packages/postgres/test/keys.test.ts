import { fixedWindow } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { PostgresStore } from '../src/index.js'
import { MAX_STORED_KEY_LENGTH, storedKey } from '../src/stored-key.js'
import { schemaForTests } from './helpers/database.js'

describe('storedKey', () => {
  it('keeps keys from core as they are, and hashes the long, the ill-formed and the ones that look hashed', () => {
    const core = 'api:ip|{ip:2001:db8::/64}|endpoint:GET /users/:id'
    expect(storedKey(core)).toBe(core)
    expect(storedKey('x'.repeat(MAX_STORED_KEY_LENGTH))).toBe('x'.repeat(MAX_STORED_KEY_LENGTH))
    for (const odd of ['x'.repeat(MAX_STORED_KEY_LENGTH + 1), 'u\ud800', 'a\u0000b', '%Habc']) {
      expect(storedKey(odd)).toMatch(/^%H[A-Za-z0-9_-]{43}$/)
    }
  })

  it('never maps two keys to one', () => {
    const keys = [
      'u\ud800',
      'u\ufffd',
      'u%uD800',
      'a\u0000b',
      'a b',
      '%H',
      '%H%',
      'x'.repeat(600),
      'x'.repeat(601),
    ]
    const stored = keys.map(storedKey)
    expect(new Set(stored).size).toBe(keys.length)
    // A key that spells another key's hash is hashed itself, so it cannot take that key's row.
    expect(storedKey(storedKey('x'.repeat(600)))).not.toBe(storedKey('x'.repeat(600)))
  })
})

describe('keys in PostgreSQL', () => {
  const db = schemaForTests()

  it('a NUL, a lone surrogate and a forged hash each get a row of their own', async () => {
    const store = new PostgresStore({ pool: db.pool, schema: db.schema })
    const one = fixedWindow({ limit: 1, window: '1h' })
    const long = 'k'.repeat(700)
    const keys = ['a\u0000b', 'a', 'u\ud800', 'u\ufffd', long, storedKey(long), 'ключ 🔑']
    for (const key of keys) {
      expect((await store.consume(one, key, 1)).allowed, JSON.stringify(key)).toBe(true)
      expect((await store.consume(one, key, 1)).allowed).toBe(false)
    }
    const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM "${db.schema}".floodgate`)
    expect(rows[0].n).toBe(keys.length)
  })
})
