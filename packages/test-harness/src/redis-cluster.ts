import { runFile, waitFor } from './child-processes.js'
import { freePort } from './free-port.js'
import { type RedisServer, startRedis } from './redis-server.js'

/** A Redis Cluster of masters this harness started. */
export interface RedisCluster {
  /** Its nodes, as `new Redis.Cluster(cluster.nodes)` takes them. */
  readonly nodes: { host: string; port: number }[]
  readonly servers: RedisServer[]
  stop(): Promise<void>
}

/**
 * Start a Redis Cluster of `masters` (default 3) `redis-server`s with no replicas, on free ports, create it
 * with `redis-cli --cluster create` and wait until every node reports `cluster_state:ok`.
 *
 * @example const cluster = await startRedisCluster(); const client = new Redis.Cluster(cluster.nodes)
 */
export async function startRedisCluster(options: { masters?: number } = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3
  const servers: RedisServer[] = []
  try {
    for (let i = 0; i < masters; i++) {
      const busPort = await freePort()
      servers.push(
        await startRedis({
          args: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-node-timeout',
            '2000',
            '--cluster-port',
            String(busPort),
          ],
        }),
      )
    }
    await runFile('redis-cli', [
      '--cluster',
      'create',
      ...servers.map((s) => `127.0.0.1:${s.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ])
    for (const server of servers) {
      await waitFor(`cluster_state:ok on port ${server.port}`, async () => {
        try {
          return (await runFile('redis-cli', ['-p', String(server.port), 'cluster', 'info'])).includes(
            'cluster_state:ok',
          )
        } catch {
          return false
        }
      })
    }
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()))
    throw error
  }
  return {
    nodes: servers.map((s) => ({ host: s.host, port: s.port })),
    servers,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()))
    },
  }
}
