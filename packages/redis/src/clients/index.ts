import { adaptIoredis, type IoredisClient, isIoredisClient } from './ioredis.js'
import {
  adaptNodeRedis,
  adaptNodeRedisCluster,
  type NodeRedisClient,
  type NodeRedisCluster,
  nodeRedisKind,
} from './node-redis.js'
import type { ScriptClient } from './script-client.js'

export type { IoredisClient, NodeRedisClient, NodeRedisCluster, ScriptClient }

/**
 * The Redis client a RedisStore takes: ioredis (`new Redis(url)`, `new Redis.Cluster(nodes)`, or any object
 * with `evalsha`, `eval` and `del`) or node-redis (`createClient()`, `createCluster()`).
 */
export type RedisClient = IoredisClient | NodeRedisClient | NodeRedisCluster

/** Which kind of client `value` is, by the methods it offers (never by class name); `undefined` if none. */
export function clientKind(value: unknown): 'ioredis' | 'node-redis' | 'node-redis-cluster' | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  // node-redis first: an ioredis client has a `sendCommand` too, but no boolean `isReady`.
  return nodeRedisKind(value) ?? (isIoredisClient(value) ? 'ioredis' : undefined)
}

/** The store's one view of `client`, chosen once. Throws a TypeError for anything {@link clientKind} refuses. */
export function adaptClient(client: RedisClient): ScriptClient {
  switch (clientKind(client)) {
    case 'node-redis':
      return adaptNodeRedis(client as NodeRedisClient)
    case 'node-redis-cluster':
      return adaptNodeRedisCluster(client as NodeRedisCluster)
    case 'ioredis':
      return adaptIoredis(client as IoredisClient)
    default:
      throw new TypeError('RedisStore: the client is neither an ioredis nor a node-redis client')
  }
}
