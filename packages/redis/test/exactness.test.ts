import { type ChildProcess, fork } from 'node:child_process'
import { type RedisCluster, requireSharedRedis, startRedisCluster } from '@floodgate/testkit'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisStore } from '../src/index.js'
import type { FireOrder } from './fixtures/fire.js'
import { bundleFixture } from './fixtures/fork-fixture.js'
import { CLIENT_NAMES, type ClientName, openClient, type Target, TEST_DB, testPrefix } from './helpers.js'

// Four separate Node processes (four "API servers"), each firing 250 concurrent requests at one key whose
// limit is 100: the store must admit exactly 100 in total. With each client (ioredis, node-redis), on the
// shared standalone Redis and on a 3-master Cluster this file starts. The child is bundled from
// fixtures/fire.ts (the RedisStore's TypeScript sources, no build needed) into node_modules, where it finds
// both clients; four children per client serve both deployments.
let removeBundle = () => {}
const children: Record<ClientName, ChildProcess[]> = { ioredis: [], 'node-redis': [] }
const PROCESSES = 4
const REQUESTS = 250
const base = testPrefix('exact')
let standalone: Target
let cluster: RedisCluster

/** The next message of a child (or a rejection when it exits first). */
const reply = <T>(c: ChildProcess) =>
  new Promise<T>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`a child exited (code ${code})`))
    c.once('exit', onExit)
    c.once('message', (message) => {
      c.off('exit', onExit)
      resolve(message as T)
    })
  })

beforeAll(async () => {
  const { host, port } = await requireSharedRedis()
  standalone = { host, port, db: TEST_DB }
  cluster = await startRedisCluster({ masters: 3 })
  const { file, remove } = await bundleFixture('fire')
  removeBundle = remove
  for (const name of CLIENT_NAMES) {
    children[name] = Array.from({ length: PROCESSES }, () =>
      fork(file, [name], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
    )
  }
  await Promise.all(
    Object.values(children)
      .flat()
      .map((c) => reply(c)),
  ) // each says when it has loaded
}, 90_000)

afterAll(async () => {
  const all = Object.values(children).flat()
  const exited = all.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined))
  for (const c of all) if (c.exitCode === null) c.send({ type: 'exit' })
  await Promise.all(exited)
  removeBundle()
  await cluster?.stop()
  const client = new Redis({ ...(standalone as { host: string; port: number }), db: TEST_DB })
  const keys = await client.keys(`${base}:*`)
  if (keys.length > 0) await client.del(...keys)
  await client.quit()
})

// Window algorithms at a fixed instant (so no test can straddle a window boundary), the others on the Redis
// server's clock (TIME inside the script), as servers in production would run.
const cases: [kind: string, now: number | undefined][] = [
  ['fixed-window', Date.UTC(2026, 0, 1, 12, 30)],
  ['sliding-window-log', undefined],
  ['token-bucket', undefined],
  ['leaky-bucket', undefined],
  ['gcra', undefined],
  ['sliding-window-counter', Date.UTC(2026, 0, 1, 12, 30)],
]

const deployments = ['standalone Redis', 'Redis Cluster'] as const

for (const deployment of deployments) {
  for (const name of CLIENT_NAMES) {
    describe(`exactness (${name}, ${deployment}): ${PROCESSES} processes x ${REQUESTS} concurrent requests, limit 100`, () => {
      const target = (): Target => (deployment === 'Redis Cluster' ? { nodes: cluster.nodes } : standalone)
      const prefix = `${base}:${name}:${deployment === 'Redis Cluster' ? 'cluster' : 'standalone'}`
      /** Arm every process with its 250 requests, then fire them all at once; count the admissions. */
      async function fire(kind: string, key: string, now?: number) {
        const order: FireOrder = { target: target(), prefix, kind, key, requests: REQUESTS, now }
        const processes = children[name]
        const ready = processes.map((c) => reply(c))
        for (const c of processes) c.send({ type: 'order', order })
        await Promise.all(ready)
        const results = processes.map((c) => reply<{ admitted: number; notFromRedis: number }>(c))
        for (const c of processes) c.send({ type: 'fire' })
        const all = await Promise.all(results)
        return {
          admitted: all.reduce((sum, r) => sum + r.admitted, 0),
          notFromRedis: all.reduce((sum, r) => sum + r.notFromRedis, 0),
        }
      }

      for (const [kind, now] of cases) {
        it(`${kind}: exactly 100 admitted`, async () => {
          const result = await fire(kind, `exact-${kind}`, now)
          expect(result.notFromRedis).toBe(0)
          expect(result.admitted).toBe(100)
        }, 30_000)
      }

      it('sliding-window-counter: the bound, limit - prev x (1 - elapsed/window), holds exactly under concurrency', async () => {
        // 100 admitted in the last minute of the previous hour; at 12:30 the previous window weighs 1/2, so
        // the estimate leaves room for exactly 50 more. Over the rolling hour 11:30-12:30 that is 150 = limit
        // + prev x elapsed/window: the counter's approximation, not a concurrency error.
        const opened = openClient(name, target())
        await opened.ready
        try {
          const store = new RedisStore({ client: opened.client, prefix, failMode: 'closed' })
          const { slidingWindowCounter } = await import('@floodgate/core')
          const algorithm = slidingWindowCounter({ limit: 100, window: '1h' })
          const key = 'bound-swc'
          expect((await store.consume(algorithm, key, 100, Date.UTC(2026, 0, 1, 11, 59))).allowed).toBe(true)
          const result = await fire('sliding-window-counter', key, Date.UTC(2026, 0, 1, 12, 30))
          expect(result.admitted).toBe(50)
        } finally {
          await opened.close()
        }
      }, 30_000)
    })
  }
}
