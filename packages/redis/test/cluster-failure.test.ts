import {
  type RedisCluster,
  type RedisServer,
  startRedisCluster,
  until,
  watchUnhandled,
} from '@floodgate/test-harness'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { RedisClient } from '../src/index.js'
import { expectBoundedAndHonoured, load, stores } from './failure-load.js'
import { CLIENT_NAMES, type ClientName, openClient, type TestClient } from './helpers.js'

// Real failures in a real 3-master Redis Cluster (no replicas) this file starts, once per client: one master
// killed mid-load and restarted on its port (it rejoins from its nodes.conf), one master frozen (SIGSTOP),
// and every master down when the client is created. Each client is left at its default offline queue (on).
// A failed master makes the Cluster refuse every slot (CLUSTERDOWN) once the others notice: decisions must
// stay bounded and take the fail mode throughout, and every key must be decided by Redis again afterwards.
const unhandled = watchUnhandled()

/** Until every master reports `cluster_state:ok` (the test's own timeout bounds it). */
async function clusterOk(cluster: RedisCluster): Promise<void> {
  for (const { port } of cluster.nodes) {
    const admin = new Redis({ port, lazyConnect: true, retryStrategy: () => 50 })
    admin.on('error', () => {})
    try {
      while (!String(await admin.cluster('INFO').catch(() => '')).includes('cluster_state:ok')) {
        await new Promise((r) => setTimeout(r, 50))
      }
    } finally {
      admin.disconnect()
    }
  }
}

for (const name of CLIENT_NAMES) {
  describe(`when a Redis Cluster master fails (${name})`, () => {
    let cluster: RedisCluster
    let victim: RedisServer
    const clients: TestClient[] = []
    /** A client that reconnects every 50 ms; connected when `connected`, else still connecting. */
    const client = async (connected = true): Promise<RedisClient> => {
      const opened = openClient(name as ClientName, { nodes: cluster.nodes }, { reconnect: true })
      clients.push(opened)
      if (connected) await opened.ready
      return opened.client
    }

    beforeAll(async () => {
      cluster = await startRedisCluster({ masters: 3 })
      victim = cluster.servers[0]!
    }, 60_000)
    afterAll(async () => {
      await cluster?.stop()
    })
    afterEach(async () => {
      for (const c of clients.splice(0)) await c.close()
    })

    it('a master killed mid-load and restarted: bounded, each mode honoured, every key on Redis again', async () => {
      const run = load(stores(await client()))
      // Warm: every key decided by Redis once (the client has connected to every master), then steady.
      await until(() => run.allKeysFromBackendSince(0))
      const warm = run.records.length
      await run.eachMode(20, true, warm)
      const killed = run.records.length
      await victim.kill('SIGKILL')
      await run.eachMode(20, false, killed)
      await victim.restart()
      await clusterOk(cluster)
      const restarted = run.records.length
      await until(() => run.allKeysFromBackendSince(restarted))
      await run.stop()

      expectBoundedAndHonoured(run, unhandled)
      expect(run.records.slice(warm, killed).filter((r) => r.source !== 'redis')).toEqual([])
    }, 60_000)

    it('a master frozen (connected, never answering): bounded by timeoutMs, then every key on Redis again', async () => {
      const run = load(stores(await client()))
      await run.eachMode(20, true)
      victim.pause()
      const paused = run.records.length
      try {
        await run.eachMode(20, false, paused)
      } finally {
        victim.resume()
      }
      await clusterOk(cluster)
      const resumed = run.records.length
      await until(() => run.allKeysFromBackendSince(resumed))
      await run.stop()

      expectBoundedAndHonoured(run, unhandled)
    }, 60_000)

    it('every master down when the client is created: bounded, fail mode, then Redis once the Cluster is up', async () => {
      for (const server of cluster.servers) await server.kill('SIGKILL')
      const run = load(stores(await client(false)), 4)
      await run.eachMode(10, false)
      for (const server of cluster.servers) await server.restart()
      await clusterOk(cluster)
      await until(() => run.allKeysFromBackendSince(0))
      await run.stop()

      expectBoundedAndHonoured(run, unhandled)
    }, 60_000)
  })
}
