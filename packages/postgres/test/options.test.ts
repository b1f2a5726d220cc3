import { MemoryStore, RateLimitConfigError } from '@floodgate/core'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { PostgresStore, type PostgresStoreOptions } from '../src/index.js'

const pool = new pg.Pool({ host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test', max: 1 })
afterAll(() => pool.end())

const configError = (options: unknown) => {
  try {
    new PostgresStore(options as PostgresStoreOptions)
  } catch (error) {
    return error as RateLimitConfigError
  }
  throw new Error('expected a RateLimitConfigError')
}

describe('PostgresStore options', () => {
  it('are validated when the store is created, naming the option, the value and what is allowed', () => {
    expect(configError({})).toBeInstanceOf(RateLimitConfigError)
    expect(configError({}).message).toBe(
      "Expected `PostgresStore.pool` to be a pg Pool (new Pool() from 'pg'), got undefined (undefined)",
    )
    expect(configError({ pool, timeoutMs: -5 }).message).toBe(
      'Expected `PostgresStore.timeoutMs` to be a number of ms > 0, got -5 (number)',
    )
    expect(configError({ pool, failMode: 'maybe' }).message).toContain("'open', 'closed' or 'fallback'")
    expect(configError({ pool, schema: 'Public' }).option).toBe('PostgresStore.schema')
    expect(configError({ pool, table: 'a-b' }).option).toBe('PostgresStore.table')
    expect(configError({ pool, timeoutMs: 100, lockTimeoutMs: 50 }).message).toBe(
      'Expected `PostgresStore.lockTimeoutMs` to be a whole number of ms >= 1, below half of timeoutMs, got 50 (number)',
    )
    expect(configError({ pool, lockTimeoutMs: 1.5 }).option).toBe('PostgresStore.lockTimeoutMs')
    expect(configError({ pool, sweep: { every: 0 } }).option).toBe('PostgresStore.sweep.every')
    expect(configError({ pool, sweep: true }).message).toContain('false or { every, batch }')
    expect(configError({ pool, expiryGraceMs: 0.5 }).option).toBe('PostgresStore.expiryGraceMs')
    expect(configError({ pool, synchronousCommit: 'yes' }).option).toBe('PostgresStore.synchronousCommit')
    expect(configError({ pool, timeout: 5 }).code).toBe('ERR_FLOODGATE_UNKNOWN_OPTION')
    expect(configError({ pool, client: pool }).message).toContain(
      'one of the known options (pool, schema, table',
    )
  })

  it('has defaults: public.floodgate, 500 ms, a lock wait of a quarter of that, fail open; fallback gets a MemoryStore', () => {
    const store = new PostgresStore({ pool })
    expect([
      store.schema,
      store.table,
      store.timeoutMs,
      store.lockTimeoutMs,
      store.failMode,
      store.fallback,
    ]).toEqual(['public', 'floodgate', 500, 125, 'open', undefined])
    expect(new PostgresStore({ pool, timeoutMs: 2 }).lockTimeoutMs).toBe(1)
    expect(new PostgresStore({ pool, failMode: 'fallback' }).fallback).toBeInstanceOf(MemoryStore)
  })

  it('takes any pool with connect, on and removeListener, and never ends it', async () => {
    const narrow = {
      connect: pool.connect.bind(pool),
      on: () => narrow,
      removeListener: () => narrow,
    }
    const store = new PostgresStore({ pool: narrow as never })
    expect(store.pool).toBe(narrow)
    await store.close()
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }])
  })
})
