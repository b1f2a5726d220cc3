import { describeStoreConformance, type StoreFactory } from '@floodgate/testkit'
import type { Redis } from 'ioredis'
import { RedisStore, type RedisStoreOptions } from '../src/index.js'
import { type ClientName, type Resilience, sharedTestClient, type TestClient, testPrefix } from './helpers.js'

const clients = new Map<RedisStore, TestClient>()

/** A RedisStore on its own client and prefix; the conformance run closes both. */
function redisFactory(
  name: ClientName,
  prefix: string,
  resilience: Resilience = {},
  narrow?: (client: Redis) => RedisStoreOptions['client'],
  options: Partial<RedisStoreOptions> = {},
): StoreFactory {
  return {
    async create() {
      const opened = await sharedTestClient(name, resilience)
      const store = new RedisStore({
        client: narrow ? narrow(opened.client as Redis) : opened.client,
        prefix: testPrefix(prefix),
        failMode: 'closed',
        timeoutMs: 5000,
        ...options,
      })
      clients.set(store, opened)
      return store
    },
    async destroy(store) {
      await store.close()
      await clients.get(store as RedisStore)?.close()
    },
  }
}

describeStoreConformance('RedisStore (standalone Redis, ioredis)', redisFactory('ioredis', 'conformance'))
describeStoreConformance('RedisStore (standalone Redis, node-redis)', {
  ...redisFactory('node-redis', 'conformance-node-redis'),
  sequences: 6,
})
describeStoreConformance('RedisStore (standalone Redis, ioredis auto-pipelining)', {
  ...redisFactory('ioredis', 'pipelined', { pipelining: true }),
  sequences: 4,
})
describeStoreConformance('RedisStore (a narrow client without binary replies: text replies)', {
  ...redisFactory('ioredis', 'text', {}, (client) => ({
    evalsha: client.evalsha.bind(client),
    eval: client.eval.bind(client),
    del: client.del.bind(client),
  })),
  sequences: 4,
})
describeStoreConformance('RedisStore (standalone Redis, ioredis, batch: false)', {
  ...redisFactory('ioredis', 'unbatched', {}, undefined, { batch: false }),
  sequences: 4,
})
describeStoreConformance('RedisStore (standalone Redis, node-redis, batch: { maxSize: 2 })', {
  ...redisFactory('node-redis', 'small-batches', {}, undefined, { batch: { maxSize: 2 } }),
  sequences: 3,
})
