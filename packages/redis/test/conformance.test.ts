import { describeStoreConformance } from '@floodgate/testkit'
import type { Redis } from 'ioredis'
import { RedisStore } from '../src/index.js'
import { sharedClient, testPrefix } from './helpers.js'

const clients = new Map<RedisStore, Redis>()

describeStoreConformance('RedisStore (standalone Redis)', {
  async create() {
    const client = await sharedClient()
    const store = new RedisStore({
      client,
      prefix: testPrefix('conformance'),
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
})

describeStoreConformance('RedisStore (standalone Redis, auto-pipelining)', {
  async create() {
    const client = await sharedClient({ enableAutoPipelining: true })
    const store = new RedisStore({
      client,
      prefix: testPrefix('pipelined'),
      failMode: 'closed',
      timeoutMs: 5000,
    })
    clients.set(store, client)
    return store
  },
  async destroy(store) {
    await clients.get(store as RedisStore)?.quit()
  },
  sequences: 4,
})

describeStoreConformance('RedisStore (a narrow client without binary replies: text replies)', {
  async create() {
    const client = await sharedClient()
    const narrow = {
      evalsha: client.evalsha.bind(client),
      eval: client.eval.bind(client),
      del: client.del.bind(client),
    }
    const store = new RedisStore({
      client: narrow,
      prefix: testPrefix('text'),
      failMode: 'closed',
      timeoutMs: 5000,
    })
    clients.set(store, client)
    return store
  },
  async destroy(store) {
    await clients.get(store as RedisStore)?.quit()
  },
  sequences: 4,
})
