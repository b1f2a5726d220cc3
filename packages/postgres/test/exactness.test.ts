import { type ChildProcess, fork } from 'node:child_process'
import { rmSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { slidingWindowCounter } from '@floodgate/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PostgresStore } from '../src/index.js'
import type { FireOrder } from './fixtures/fire.js'
import { SHARED_POSTGRES, type TestSchema, testSchema } from './helpers/database.js'

// Four separate Node processes (four "API servers"), each with its own pool, firing 250 concurrent requests at
// one key whose limit is 100: the store must admit exactly 100 in total. The child is bundled from
// fixtures/fire.ts (the store's TypeScript sources, no build needed) into node_modules, where it finds pg.
const outDir = fileURLToPath(new URL('../node_modules/.floodgate-test/', import.meta.url))
const child = `${outDir}fire.mjs`
const PROCESSES = 4
const REQUESTS = 250
let db: TestSchema

beforeAll(async () => {
  db = await testSchema()
  const { build } = await import('tsup')
  await build({
    entry: { fire: fileURLToPath(new URL('./fixtures/fire.ts', import.meta.url)) },
    outDir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    outExtension: () => ({ js: '.mjs' }),
    noExternal: [/^@floodgate\//],
    external: ['pg', 'zod'],
    esbuildOptions(options) {
      options.alias = {
        '@floodgate/core/internal': fileURLToPath(new URL('../../core/src/internal.ts', import.meta.url)),
        '@floodgate/core': fileURLToPath(new URL('../../core/src/index.ts', import.meta.url)),
      }
    },
    config: false,
    silent: true,
    dts: false,
    clean: false,
    sourcemap: false,
  })
}, 60_000)

afterAll(async () => {
  rmSync(outDir, { recursive: true, force: true })
  await db?.drop()
})

let children: ChildProcess[] = []

beforeAll(() => {
  children = Array.from({ length: PROCESSES }, () =>
    fork(child, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  )
})
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.send({ type: 'exit' })
})

const reply = <T>(c: ChildProcess) =>
  new Promise<T>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`a child exited (code ${code})`))
    c.once('exit', onExit)
    c.once('message', (message) => {
      c.off('exit', onExit)
      resolve(message as T)
    })
  })

/** Arm every process with its 250 requests, then fire them all at once; count the admissions. */
async function fire(
  kind: string,
  key: string,
  options: { now?: number; pairs?: boolean } = {},
): Promise<{ admitted: number; notFromPostgres: number }> {
  const ready = children.map((c) => reply(c))
  children.forEach((c, i) => {
    const order: FireOrder = {
      connection: { ...SHARED_POSTGRES, max: 5 },
      schema: db.schema,
      kind,
      key,
      requests: REQUESTS,
      now: options.now,
      pair: options.pairs ? (i % 2 === 0 ? 'forward' : 'reversed') : undefined,
    }
    c.send({ type: 'order', order })
  })
  await Promise.all(ready)
  const results = children.map((c) => reply<{ admitted: number; notFromPostgres: number }>(c))
  for (const c of children) c.send({ type: 'fire' })
  const all = await Promise.all(results)
  return {
    admitted: all.reduce((sum, r) => sum + r.admitted, 0),
    notFromPostgres: all.reduce((sum, r) => sum + r.notFromPostgres, 0),
  }
}

describe(`exactness: ${PROCESSES} processes x ${REQUESTS} concurrent requests, limit 100`, () => {
  // Window algorithms at a fixed instant (so no test can straddle a window boundary), the others on the
  // database's clock, as servers in production would run.
  const at = Date.UTC(2026, 0, 1, 12, 30)
  const cases: [kind: string, now: number | undefined][] = [
    ['fixed-window', at],
    ['sliding-window-log', undefined],
    ['token-bucket', undefined],
    ['leaky-bucket', undefined],
    ['gcra', undefined],
    ['sliding-window-counter', at],
    ['calendar-quota', at],
  ]
  for (const [kind, now] of cases) {
    it(`${kind}: exactly 100 admitted`, async () => {
      const result = await fire(kind, `exact-${kind}`, { now })
      expect(result.notFromPostgres).toBe(0)
      expect(result.admitted).toBe(100)
    }, 30_000)
  }

  it('consumeAll over two keys, given in opposite orders by half the processes: exactly 100, no deadlock', async () => {
    const result = await fire('token-bucket', 'exact-pair', { pairs: true })
    expect(result.notFromPostgres).toBe(0)
    expect(result.admitted).toBe(100)
    const wide = await db.pool.query(
      `SELECT state[2] AS count FROM "${db.schema}".floodgate WHERE key = 'exact-pair:wide'`,
    )
    expect(wide.rows).toEqual([{ count: 100 }]) // the refused 900 spent nothing in the wider policy
  }, 30_000)

  it('sliding-window-counter: the bound, limit - prev x (1 - elapsed/window), holds exactly under concurrency', async () => {
    // 100 admitted in the last minute of the previous hour; at 12:30 the previous window weighs 1/2, so the
    // estimate leaves room for exactly 50 more: the counter's approximation, not a concurrency error.
    const store = new PostgresStore({ pool: db.pool, schema: db.schema, failMode: 'closed' })
    const algorithm = slidingWindowCounter({ limit: 100, window: '1h' })
    expect((await store.consume(algorithm, 'bound-swc', 100, Date.UTC(2026, 0, 1, 11, 59))).allowed).toBe(
      true,
    )
    const result = await fire('sliding-window-counter', 'bound-swc', { now: at })
    expect(result.admitted).toBe(50)
    await store.close()
  }, 30_000)
})
