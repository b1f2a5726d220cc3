// Regression: an `onError` that returned a rejected promise (an async logger whose sink is down) was an
// unhandled rejection, and the process exited; a hook that threw was already ignored. On the shared PostgreSQL,
// with a failure it really answers (a schema that was never migrated: the decision function does not exist),
// the decision arrives by the limiter's fail mode and nothing is left unhandled.
import { createLimiter, fixedWindow } from '@floodgate/core'
import { watchUnhandled } from '@floodgate/test-harness'
import { afterAll, describe, expect, it } from 'vitest'
import { migrate, PostgresStore } from '../src/index.js'
import { sharedPool, testSchemaName } from './helpers/database.js'

const unhandled = watchUnhandled()
const pool = sharedPool({ max: 1 })
afterAll(async () => {
  await pool.end()
})

describe('PostgresStore: an async onError that rejects', () => {
  it('the decision still arrives by the fail mode; nothing is left unhandled', async () => {
    let calls = 0
    const store = new PostgresStore({
      pool,
      schema: testSchemaName(), // never migrated
      onError: async () => {
        calls++
        throw new Error('log sink is down')
      },
    })
    const algorithm = fixedWindow({ limit: 10, window: '1m' })
    const limiter = createLimiter({ algorithm, store, failMode: 'closed' })
    expect(await limiter.consume('k')).toMatchObject({ allowed: false, source: 'fail-closed' })
    expect(await limiter.consume('k')).toMatchObject({ allowed: false, source: 'fail-closed' })
    await new Promise((resolve) => setImmediate(resolve))
    // Told of the first failure at least (a failure that took longer than storeTimeout opens the circuit, and the
    // second decision is then taken with no call to report).
    expect(calls).toBeGreaterThanOrEqual(1)
    expect(unhandled).toEqual([])
    await store.close()
  })
})

describe('migrate', () => {
  it('refuses a pool that is not one, at the call, naming it', async () => {
    await expect(migrate(undefined as never)).rejects.toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION', option: 'migrate.pool' }),
    )
    await expect(migrate({ connect() {} } as never)).rejects.toThrow(/a pg Pool or Client/)
  })
})
