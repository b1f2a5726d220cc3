import { Cluster, Redis, type RedisOptions } from 'ioredis'
import { createClient, createCluster } from 'redis'
import type { RedisClient } from '../src/index.js'

// Test clients of both libraries the store takes, opened the same way (no test harness here: the exactness
// fixture bundles this file into a child process).

/** The two clients the store takes. */
export type ClientName = 'ioredis' | 'node-redis'
export const CLIENT_NAMES: readonly ClientName[] = ['ioredis', 'node-redis']

/** A client for a test, and how to end it. */
export interface TestClient {
  client: RedisClient
  close(): Promise<void>
}

/** Where a client connects: one Redis, or the nodes of a Cluster. */
export type Target =
  | { port: number; host?: string; db?: number }
  | { nodes: { host: string; port: number }[] }

/** How a test client behaves when the server goes away. */
export interface Resilience {
  /** Reconnect every 50 ms, forever, and ignore connection errors (tests that kill servers). */
  reconnect?: boolean
  /** Queue commands while disconnected (ioredis `enableOfflineQueue`, node-redis `!disableOfflineQueue`). */
  offlineQueue?: boolean
  /** ioredis's `enableAutoPipelining`. */
  pipelining?: boolean
}

const silence = (client: { on(event: 'error', listener: () => void): unknown }) =>
  client.on('error', () => {})

/**
 * A client of `name` to `target`. It is connecting when this returns (`await ready` waits for the first
 * connection; a node-redis client is told to connect, and its rejection, when the server is absent, is
 * ignored): the failure tests use it before the server exists.
 */
export function openClient(
  name: ClientName,
  target: Target,
  resilience: Resilience = {},
): TestClient & { ready: Promise<unknown> } {
  const { reconnect = false, offlineQueue = true, pipelining = false } = resilience
  if (name === 'ioredis') {
    const options: RedisOptions = {
      enableOfflineQueue: offlineQueue,
      enableAutoPipelining: pipelining,
      ...(reconnect ? { retryStrategy: () => 50, maxRetriesPerRequest: 2 } : {}),
    }
    if ('nodes' in target) {
      const cluster = new Cluster(target.nodes, {
        enableOfflineQueue: offlineQueue,
        enableAutoPipelining: pipelining,
        redisOptions: options,
        ...(reconnect ? { clusterRetryStrategy: () => 50 } : {}),
      })
      if (reconnect) silence(cluster)
      return {
        client: cluster,
        ready: new Promise((resolve) => cluster.once('ready', resolve)),
        close: async () => cluster.disconnect(),
      }
    }
    const client = new Redis({
      host: target.host ?? '127.0.0.1',
      port: target.port,
      db: target.db ?? 0,
      ...options,
    })
    if (reconnect) silence(client)
    return { client, ready: client.ping().catch(() => {}), close: async () => client.disconnect() }
  }
  const socket = { reconnectStrategy: reconnect ? 50 : undefined }
  if ('nodes' in target) {
    const cluster = createCluster({
      rootNodes: target.nodes.map(({ host, port }) => ({ socket: { host, port } })),
      defaults: { socket, disableOfflineQueue: !offlineQueue },
    })
    silence(cluster)
    // node-redis's Cluster gives up when no root node answers `connect()`: retry it, as an app would.
    let closed = false
    const connect = async (): Promise<void> => {
      while (!closed) {
        try {
          await cluster.connect()
          return
        } catch {
          if (!reconnect) return
          await new Promise((r) => setTimeout(r, 50))
        }
      }
    }
    return {
      client: cluster,
      ready: connect(),
      close: () => {
        closed = true
        return close(cluster)
      },
    }
  }
  const client = createClient({
    socket: { host: target.host ?? '127.0.0.1', port: target.port, ...socket },
    database: target.db ?? 0,
    disableOfflineQueue: !offlineQueue,
  })
  silence(client)
  return { client, ready: client.connect().catch(() => {}), close: () => close(client) }
}

/** End a node-redis client or Cluster: gracefully when it is open, else at once. */
async function close(client: { isOpen: boolean; close(): Promise<void>; destroy(): unknown }): Promise<void> {
  if (!client.isOpen) return
  await Promise.race([client.close().catch(() => {}), new Promise((r) => setTimeout(r, 1000))])
  if (client.isOpen) client.destroy()
}
