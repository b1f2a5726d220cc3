import { describeStoreConformance, type StoreFactory } from '@floodgate/testkit'
import type { Redis, RedisOptions } from 'ioredis'
import { RedisStore, type RedisStoreOptions } from '../src/index.js'
import { sharedClient, testPrefix } from './helpers.js'

const clients = new Map<RedisStore, Redis>()

/** A RedisStore on its own client and prefix; the conformance run closes both. */
function redisFactory(
  name: string,
  clientOptions: RedisOptions = {},
  narrow?: (client: Redis) => RedisStoreOptions['client'],
): StoreFactory {
  return {
    async create() {
      const client = await sharedClient(clientOptions)
      const store = new RedisStore({
        client: narrow ? narrow(client) : client,
        prefix: testPrefix(name),
        failMode: 'closed',
        timeoutMs: 5000,
      })
      clients.set(store, client)
      return store
    },
    async destroy(store) {
      await store.close()
      await clients.get(store as RedisStore)?.quit()
    },
  }
}

describeStoreConformance('RedisStore (standalone Redis)', redisFactory('conformance'))
describeStoreConformance('RedisStore (standalone Redis, auto-pipelining)', {
  ...redisFactory('pipelined', { enableAutoPipelining: true }),
  sequences: 4,
})
describeStoreConformance('RedisStore (a narrow client without binary replies: text replies)', {
  ...redisFactory('text', {}, (client) => ({
    evalsha: client.evalsha.bind(client),
    eval: client.eval.bind(client),
    del: client.del.bind(client),
  })),
  sequences: 4,
})
