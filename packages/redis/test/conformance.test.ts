import { bounded } from '@floodgate/test-harness'
import { type StoreUnderTest, testStore } from '@floodgate/testing'
import type { Redis } from 'ioredis'
import { RedisStore, type RedisStoreOptions } from '../src/index.js'
import { type ClientName, type Resilience, sharedTestClient, type TestClient, testPrefix } from './helpers.js'

const clients = new Map<RedisStore, TestClient>()

/** A RedisStore on its own client and prefix; the conformance run closes both. */
function redisStore(
  name: ClientName,
  prefix: string,
  resilience: Resilience = {},
  narrow?: (client: Redis) => RedisStoreOptions['client'],
  options: Partial<RedisStoreOptions> = {},
): Pick<StoreUnderTest<RedisStore>, 'create' | 'destroy'> {
  return {
    async create() {
      const opened = await sharedTestClient(name, resilience)
      const store = bounded(
        new RedisStore({
          client: narrow ? narrow(opened.client as Redis) : opened.client,
          prefix: testPrefix(prefix),
          ...options,
        }),
        5000,
      )
      clients.set(store, opened)
      return store
    },
    async destroy(store) {
      await store.close()
      await clients.get(store)?.close()
    },
  }
}

testStore({ name: 'RedisStore (standalone Redis, ioredis)', ...redisStore('ioredis', 'conformance') })
testStore({
  name: 'RedisStore (standalone Redis, node-redis)',
  ...redisStore('node-redis', 'conformance-node-redis'),
  sequences: 6,
})
testStore({
  name: 'RedisStore (standalone Redis, ioredis auto-pipelining)',
  ...redisStore('ioredis', 'pipelined', { pipelining: true }),
  sequences: 4,
})
testStore({
  name: 'RedisStore (a narrow client without binary replies: text replies)',
  ...redisStore('ioredis', 'text', {}, (client) => ({
    evalsha: client.evalsha.bind(client),
    eval: client.eval.bind(client),
    del: client.del.bind(client),
  })),
  sequences: 4,
})
testStore({
  name: 'RedisStore (standalone Redis, ioredis, batch: false)',
  ...redisStore('ioredis', 'unbatched', {}, undefined, { batch: false }),
  sequences: 4,
})
testStore({
  name: 'RedisStore (standalone Redis, node-redis, batch: { maxSize: 2 })',
  ...redisStore('node-redis', 'small-batches', {}, undefined, { batch: { maxSize: 2 } }),
  sequences: 3,
})
testStore({
  name: "RedisStore on the Redis server's clock (calls without a time)",
  ...redisStore('ioredis', 'server-time'),
  time: 'own',
})
