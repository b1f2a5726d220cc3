import { slidingWindowCounter } from '@floodgate/core'
import {
  exactnessCases,
  type Fleet,
  fireAtOnce,
  type RedisCluster,
  requireSharedRedis,
  startRedisCluster,
} from '@floodgate/test-harness'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisStore } from '../src/index.js'
import type { FireOrder } from './fixtures/fire.js'
import { forkRedisFixture } from './fixtures/fork-fixture.js'
import { CLIENT_NAMES, type ClientName, openClient, type Target, TEST_DB, testPrefix } from './helpers.js'

// Four separate Node processes (four "API servers"), each firing 250 concurrent requests at one key whose
// limit is 100: the store must admit exactly 100 in total. With each client (ioredis, node-redis), on the
// shared standalone Redis and on a 3-master Cluster this file starts. The child is bundled from
// fixtures/fire.ts (the RedisStore's TypeScript sources, no build needed) into node_modules, where it finds
// both clients; four children per client serve both deployments.
const fleets = new Map<ClientName, Fleet>()
const PROCESSES = 4
const REQUESTS = 250
const LIMIT = 100
const base = testPrefix('exact')
let standalone: Target
let cluster: RedisCluster

beforeAll(async () => {
  const { host, port } = await requireSharedRedis()
  standalone = { host, port, db: TEST_DB }
  cluster = await startRedisCluster({ masters: 3 })
  for (const name of CLIENT_NAMES) {
    const fleet = await forkRedisFixture('fire', { size: PROCESSES, args: [name] })
    fleets.set(name, fleet)
    await fleet.replies() // each says when it has loaded
  }
}, 90_000)

afterAll(async () => {
  await Promise.all([...fleets.values()].map((fleet) => fleet.stop()))
  await cluster?.stop()
  const client = new Redis({ ...(standalone as { host: string; port: number }), db: TEST_DB })
  const keys = await client.keys(`${base}:*`)
  if (keys.length > 0) await client.del(...keys)
  await client.quit()
})

const deployments = ['standalone Redis', 'Redis Cluster'] as const

for (const deployment of deployments) {
  for (const name of CLIENT_NAMES) {
    describe(`exactness (${name}, ${deployment}): ${PROCESSES} processes x ${REQUESTS} concurrent requests, limit ${LIMIT}`, () => {
      const target = (): Target => (deployment === 'Redis Cluster' ? { nodes: cluster.nodes } : standalone)
      const prefix = `${base}:${name}:${deployment === 'Redis Cluster' ? 'cluster' : 'standalone'}`
      /** Arm every process with its 250 requests, then fire them all at once; count the admissions. */
      const fire = (order: Pick<FireOrder, 'kind' | 'key' | 'now'>) =>
        fireAtOnce<FireOrder>(fleets.get(name)!, () => ({
          target: target(),
          prefix,
          limit: LIMIT,
          requests: REQUESTS,
          ...order,
        }))

      for (const { kind, now } of exactnessCases) {
        it(`${kind}: exactly ${LIMIT} admitted`, async () => {
          const result = await fire({ kind, key: `exact-${kind}`, now })
          expect(result.notFromStore).toBe(0)
          expect(result.admitted).toBe(LIMIT)
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
          const algorithm = slidingWindowCounter({ limit: LIMIT, window: '1h' })
          const key = 'bound-swc'
          expect((await store.consume(algorithm, key, 100, Date.UTC(2026, 0, 1, 11, 59))).allowed).toBe(true)
          const result = await fire({
            kind: 'sliding-window-counter',
            key,
            now: Date.UTC(2026, 0, 1, 12, 30),
          })
          expect(result.admitted).toBe(50)
        } finally {
          await opened.close()
        }
      }, 30_000)
    })
  }
}
