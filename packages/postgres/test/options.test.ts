import { createLimiter, fixedWindow, MemoryStore, RateLimitConfigError } from '@floodgate/core'
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
    expect(configError({ pool, cooldownMs: -5 }).message).toBe(
      'Expected `PostgresStore.cooldownMs` to be a number of ms > 0, got -5 (number)',
    )
    expect(configError({ pool, schema: 'Public' }).option).toBe('PostgresStore.schema')
    expect(configError({ pool, table: 'a-b' }).option).toBe('PostgresStore.table')
    // lockTimeoutMs is checked against the bound a limiter gives the store (its storeTimeout), when it is created.
    const lockBound = () =>
      createLimiter({
        store: new PostgresStore({ pool, lockTimeoutMs: 50 }),
        algorithm: fixedWindow({ limit: 1, window: '1s' }),
        storeTimeout: 100,
      })
    expect(lockBound).toThrow(
      "Expected `PostgresStore.lockTimeoutMs` to be a whole number of ms >= 1, below half of the limiter's storeTimeout (100 ms), got 50 (number)",
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

  it('has defaults: public.floodgate, a bound of 500 ms (the default storeTimeout) and a lock wait of a quarter of the bound a limiter sets', () => {
    const store = new PostgresStore({ pool })
    expect([store.schema, store.table, store.timeoutMs, store.lockTimeoutMs]).toEqual([
      'public',
      'floodgate',
      500,
      125,
    ])
    const algorithm = fixedWindow({ limit: 1, window: '1s' })
    createLimiter({ store, algorithm, storeTimeout: 2 })
    expect([store.timeoutMs, store.lockTimeoutMs]).toEqual([2, 1])
    const given = new PostgresStore({ pool, lockTimeoutMs: 40 })
    createLimiter({ store: given, algorithm, storeTimeout: '1s' })
    expect([given.timeoutMs, given.lockTimeoutMs]).toEqual([1000, 40])
  })

  it('batch: true, false or { maxSize } (a whole number >= 1), said in the error', () => {
    for (const batch of [true, false, { maxSize: 1 }, { maxSize: 512 }]) {
      expect(new PostgresStore({ pool, batch })).toBeInstanceOf(PostgresStore)
    }
    for (const batch of ['yes', 0, null, {}, { maxSize: 0 }, { maxSize: 2.5 }, { maxSize: 8, wait: 1 }]) {
      const error = configError({ pool, batch })
      expect(error).toBeInstanceOf(RateLimitConfigError)
      expect(error.option).toMatch(/^PostgresStore\.batch/)
      expect(error.message).toMatch(/true, false or \{ maxSize \}|a whole number >= 1|a known option/)
    }
    expect(configError({ pool, batch: 'yes' }).message).toBe(
      "Expected `PostgresStore.batch` to be true, false or { maxSize } (maxSize a whole number >= 1), got 'yes' (string)",
    )
    expect(configError({ pool, batch: { maxSize: 0 } }).message).toBe(
      'Expected `PostgresStore.batch.maxSize` to be a whole number >= 1, got 0 (number)',
    )
  })

  it("refuses failMode, fallback and timeoutMs at creation, saying they are the limiter's options now", () => {
    const moved = [
      [
        { failMode: 'closed' },
        'PostgresStore.failMode',
        "the limiter's `failMode` (rateLimit({ store, failMode })",
      ],
      [{ fallback: new MemoryStore() }, 'PostgresStore.fallback', '`failMode: { fallback: store }`'],
      [{ timeoutMs: 100 }, 'PostgresStore.timeoutMs', "the limiter's `storeTimeout`"],
    ] as const
    for (const [options, option, where] of moved) {
      const error = configError({ pool, ...options })
      expect(error.code).toBe('ERR_FLOODGATE_OPTION_MOVED')
      expect(error.option).toBe(option)
      expect(error.message).toContain(where)
    }
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
