// Runtime overrides are kept in PostgreSQL (the settings table): a change made through one server's middleware
// is applied by another server's within the store's `settingsInterval`, without a restart.
import { fixedWindow, type Outcome } from '@floodgate/core'
import { createRateLimitHandler, type RateLimitHandler } from '@floodgate/core/internal'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { PostgresStore } from '../src/index.js'
import { sharedPool, type TestSchema, testSchema } from './helpers/database.js'

let db: TestSchema
const stores: PostgresStore[] = []
const pools: { end(): Promise<void> }[] = []
beforeAll(async () => {
  db = await testSchema()
})
afterAll(async () => {
  for (const store of stores) await store.close()
  for (const pool of pools) await pool.end()
  await db.drop()
})

/** A server: a pool of its own, a PostgresStore, and a middleware keyed by user with overrides. */
function server() {
  const pool = sharedPool({ max: 2 })
  pools.push(pool)
  const store = new PostgresStore({ pool, schema: db.schema, settingsInterval: '100ms' })
  stores.push(store)
  return createRateLimitHandler({
    store,
    key: 'user',
    user: (req: { user: string }) => req.user,
    algorithm: fixedWindow({ limit: 1, window: '1h' }),
    overrides: {},
    headers: 'draft-6',
  })
}

let seq = 0
async function limitOf(handler: RateLimitHandler, id: string): Promise<string | undefined> {
  const outcome = (await handler.handle({
    ip: '198.51.100.1',
    method: 'GET',
    route: '/',
    path: '/',
    headers: {},
    native: { user: `${id}${seq++}` },
  })) as Outcome
  return outcome.skipped ? 'skipped' : outcome.headers['ratelimit-limit']
}

describe('overrides shared through PostgreSQL', () => {
  it("a change on one server is applied by another's within the interval", async () => {
    const a = server()
    const b = server()
    expect(await limitOf(b, 'vip-')).toBe('1')
    await a.overrides.set('user', 'vip-*', fixedWindow({ limit: 50, window: '1h' }))
    expect(await limitOf(a, 'vip-')).toBe('50')
    await vi.waitFor(async () => expect(await limitOf(b, 'vip-')).toBe('50'), { timeout: 5000, interval: 20 })
    await a.overrides.set('user', 'vip-*', false)
    await vi.waitFor(async () => expect(await limitOf(b, 'vip-')).toBe('skipped'), {
      timeout: 5000,
      interval: 20,
    })
    expect(await b.overrides.list()).toEqual([
      { policy: 'user', pattern: 'vip-*', override: false, source: 'runtime' },
    ])
    await b.overrides.delete('user', 'vip-*')
    await vi.waitFor(async () => expect(await limitOf(a, 'vip-')).toBe('1'), { timeout: 5000, interval: 20 })
    expect(await a.overrides.list()).toEqual([])
  })
})
