import { MemoryStore } from '@floodgate/core'
import { RedisStore } from '@floodgate/redis'
import { type StoreFactory, sharedRedisStoreFactory } from '@floodgate/test-harness'

/** The stores every adapter scenario runs on. */
export const memoryStore: StoreFactory = { create: () => new MemoryStore() }

/** A RedisStore on the shared Redis (db 9), under a prefix unique to the run. */
export const redisStore = (name: string): StoreFactory =>
  sharedRedisStoreFactory({
    name: `adapters-${name}`,
    db: 9,
    createStore: (client, prefix) => new RedisStore({ client, prefix, failMode: 'closed', timeoutMs: 5000 }),
  })
