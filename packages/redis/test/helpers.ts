import { requireSharedRedis } from '@floodgate/testkit'
import { Redis, type RedisOptions } from 'ioredis'
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
