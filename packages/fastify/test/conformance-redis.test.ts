import { RedisStore } from '@floodgate/redis'
import { describeAdapterConformance, requireSharedRedis } from '@floodgate/testkit'
import { Redis } from 'ioredis'
import { fastifyDriver } from './driver.js'

// The same scenarios on a real Redis (127.0.0.1:6379, db 9), every key under a prefix unique to this run.
let client: Redis | undefined
describeAdapterConformance(
  fastifyDriver,
  {
    async create() {
      const { host, port } = await requireSharedRedis()
      client = new Redis({ host, port, db: 9 })
      const prefix = `fgtest:adapters-fastify:${process.pid}:${Date.now().toString(36)}`
      return new RedisStore({ client, prefix, failMode: 'closed', timeoutMs: 5000 })
    },
    async destroy(store) {
      await store.close()
      await client?.quit()
    },
  },
  'redis',
)
