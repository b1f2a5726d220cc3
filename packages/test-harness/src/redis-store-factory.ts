import type { Store } from '@floodgate/core'
import { Redis, type RedisOptions } from 'ioredis'
import { requireSharedRedis } from './shared-redis.js'

/** How a test gets (and gets rid of) a store; `testStore` (from `@floodgate/testing`) takes it as it is. */
export interface StoreFactory {
  create(): Store | Promise<Store>
  /** @default (store) => store.close() */
  destroy?(store: Store): void | Promise<void>
  /** Random sequences per algorithm, when the factory is given to `testStore`. */
  sequences?: number
}

/**
 * A factory for a store on the shared Redis (127.0.0.1:6379): its own client (closed with the
 * store), a database of the tests' own (never flushed), and a key prefix unique to the run.
 *
 * @example sharedRedisStoreFactory({ name: 'conformance', createStore: (client, prefix) => new RedisStore({ client, prefix }) })
 */
export function sharedRedisStoreFactory<S extends Store>(parts: {
  name: string
  createStore(client: Redis, prefix: string): S
  /** @default 9 */
  db?: number
  clientOptions?: RedisOptions
  sequences?: number
}): StoreFactory {
  const clients = new Map<Store, Redis>()
  return {
    sequences: parts.sequences,
    async create() {
      const { host, port } = await requireSharedRedis()
      const client = new Redis({ host, port, db: parts.db ?? 9, ...parts.clientOptions })
      const store = parts.createStore(
        client,
        `fgtest:${parts.name}:${process.pid}:${Date.now().toString(36)}`,
      )
      clients.set(store, client)
      return store
    },
    async destroy(store) {
      await store.close()
      await clients.get(store)?.quit()
      clients.delete(store)
    },
  }
}
