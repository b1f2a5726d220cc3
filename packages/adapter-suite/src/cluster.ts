import { type RedisCluster, startRedisCluster } from '@floodgate/test-harness'
import { Cluster } from 'ioredis'
import { afterAll, beforeAll } from 'vitest'

/**
 * A 3-master Redis Cluster for one test file: started before its tests with an ioredis client on it (`client`,
 * from then on), both stopped after them. Call at the top level of the file.
 */
export function clusterForFile(): { readonly client: Cluster } {
  let cluster: RedisCluster | undefined
  let client: Cluster | undefined
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 })
    client = new Cluster(cluster.nodes)
  }, 60_000)
  afterAll(async () => {
    await client?.quit()
    await cluster?.stop()
  })
  return {
    get client() {
      if (!client) throw new Error('the Cluster is started in beforeAll: use its client inside a test')
      return client
    },
  }
}
