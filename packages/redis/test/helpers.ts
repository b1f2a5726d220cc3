import { requireSharedRedis } from '@floodgate/testkit'
import { Redis, type RedisOptions } from 'ioredis'

/** The database the tests use on the shared Redis; they never flush it, every key has a unique prefix. */
export const TEST_DB = 9

/** A prefix unique to this test process. */
export const testPrefix = (name: string) => `fgtest:${name}:${process.pid}:${Date.now().toString(36)}`

/** A client of the shared Redis (127.0.0.1:6379, db 9); fails with how to get Redis when there is none. */
export async function sharedClient(options: RedisOptions = {}): Promise<Redis> {
  const { host, port } = await requireSharedRedis()
  return new Redis({ host, port, db: TEST_DB, ...options })
}
