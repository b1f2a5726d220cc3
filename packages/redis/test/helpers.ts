import { requireSharedRedis } from '@floodgate/test-harness'
import { Redis, type RedisOptions } from 'ioredis'
import { afterAll, beforeAll } from 'vitest'
import { type ClientName, openClient, type Resilience, type TestClient } from './open-client.js'

export * from './open-client.js'

/** The database the tests use on the shared Redis; they never flush it, every key has a unique prefix. */
export const TEST_DB = 9

/** A prefix unique to this test process. */
export const testPrefix = (name: string) => `fgtest:${name}:${process.pid}:${Date.now().toString(36)}`

/** A client of the shared Redis (127.0.0.1:6379, db 9); fails with how to get Redis when there is none. */
export async function sharedClient(options: RedisOptions = {}): Promise<Redis> {
  const { host, port } = await requireSharedRedis()
  return new Redis({ host, port, db: TEST_DB, ...options })
}

/**
 * The shared Redis for one test file: `client` is connected before its tests; after them every key under
 * `prefix` is deleted (never a flush) and the client closed.
 */
export function sharedRedisForFile(name: string): { readonly prefix: string; client: Redis } {
  const shared = { prefix: testPrefix(name), client: undefined as unknown as Redis }
  beforeAll(async () => {
    shared.client = await sharedClient()
  })
  afterAll(async () => {
    const keys = await shared.client.keys(`${shared.prefix}*`)
    if (keys.length > 0) await shared.client.del(...keys)
    await shared.client.quit()
  })
  return shared
}

/** A connected client of `name` to the shared Redis (127.0.0.1:6379, db 9). */
export async function sharedTestClient(name: ClientName, resilience: Resilience = {}): Promise<TestClient> {
  const { host, port } = await requireSharedRedis()
  const opened = openClient(name, { host, port, db: TEST_DB }, resilience)
  await opened.ready
  return opened
}

/** A connected client of `name` to a Cluster. */
export async function clusterTestClient(
  name: ClientName,
  nodes: { host: string; port: number }[],
  resilience: Resilience = {},
): Promise<TestClient> {
  const opened = openClient(name, { nodes }, resilience)
  await opened.ready
  return opened
}
