import { fixedWindow } from '@floodgate/core'
import { requireSharedRedis } from '@floodgate/test-harness'
import { Cluster, Redis } from 'ioredis'
import { ClientOfflineError, createClient, createCluster, ErrorReply, RESP_TYPES, SimpleError } from 'redis'
import { describe, expect, it } from 'vitest'
import { adaptClient, clientKind } from '../src/clients/index.js'
import { RedisStore, replyCode } from '../src/index.js'
import { TEST_DB, testPrefix } from './helpers.js'

// The client adapters, on the real client objects (the conformance, cluster, failure and exactness suites
// run every store behaviour through both).
describe('adaptClient', () => {
  it('tells the clients apart by what they offer', () => {
    const ioredis = new Redis({ lazyConnect: true })
    const ioCluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true })
    const nodeRedis = createClient({ socket: { port: 1 } })
    const nodeCluster = createCluster({ rootNodes: [{ socket: { port: 1 } }] })
    const narrow = {
      evalsha: ioredis.evalsha.bind(ioredis),
      eval: ioredis.eval.bind(ioredis),
      del: ioredis.del.bind(ioredis),
    }
    expect([ioredis, ioCluster, narrow, nodeRedis, nodeCluster].map(clientKind)).toEqual([
      'ioredis',
      'ioredis',
      'ioredis',
      'node-redis',
      'node-redis-cluster',
    ])
    const adapted = [ioredis, ioCluster, narrow, nodeRedis, nodeCluster].map(adaptClient)
    expect(adapted.map((a) => a.isCluster)).toEqual([false, true, false, false, true])
    // Binary replies wherever the client can give them: ioredis's *Buffer methods, node-redis's type mapping.
    expect(adapted.map((a) => a.binary)).toEqual([true, true, false, true, true])
    ioredis.disconnect()
    ioCluster.disconnect()
  })

  it("reads node-redis's connection state as the circuit's status: connecting, ready, closed", async () => {
    const { host, port } = await requireSharedRedis()
    const client = createClient({ socket: { host, port }, database: TEST_DB })
    const adapted = adaptClient(client)
    expect(adapted.status).toBe('closed')
    const connecting = client.connect()
    expect(adapted.status).toBe('connecting')
    await connecting
    expect(adapted.status).toBe('ready')
    expect(await adapted.evalsha('0'.repeat(40), 1, ['k']).catch(replyCode)).toBe('NOSCRIPT')
    const reply = await adapted.eval("return struct.pack('<d', ARGV[1] + 0)", 1, ['k', '0.5'])
    expect(Buffer.isBuffer(reply) && (reply as Buffer).readDoubleLE(0)).toBe(0.5)
    // A view with a type mapping of its own: the store's mapping, sent with every command, wins.
    const view = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: String })
    const store = new RedisStore({ client: view, prefix: testPrefix('view'), failMode: 'closed' })
    expect(await store.consume(fixedWindow({ limit: 1, window: '1m' }), 'k', 1)).toMatchObject({
      allowed: true,
      source: 'redis',
    })
    // The store bounds its calls itself: its commands go without node-redis's per-command timeout (an
    // AbortSignal each), whatever the client's default.
    const sent: { timeout?: number }[] = []
    const counted = Object.create(client) as {
      sendCommand: (args: unknown, options: { timeout?: number }) => unknown
    }
    counted.sendCommand = (args, options) => {
      sent.push(options)
      return client.sendCommand(args as string[], options)
    }
    const untimed = new RedisStore({ client: counted as never, prefix: testPrefix('untimed') })
    await untimed.consume(fixedWindow({ limit: 1, window: '1m' }), 'k', 1)
    await untimed.reset(fixedWindow({ limit: 1, window: '1m' }), 'k')
    expect(sent.length).toBeGreaterThanOrEqual(2)
    expect(sent.every((options) => 'timeout' in options && options.timeout === undefined)).toBe(true)
    await client.close()
    expect(adapted.status).toBe('closed')
  })
})

describe('replyCode', () => {
  it("reads the code of either client's error replies, and nothing else", () => {
    expect(replyCode(new SimpleError('NOSCRIPT No matching script. Please use EVAL.'))).toBe('NOSCRIPT')
    expect(replyCode(new ErrorReply('WRONGTYPE Operation against a key'))).toBe('WRONGTYPE')
    expect(replyCode(new ClientOfflineError())).toBeUndefined()
    expect(replyCode(new Error('NOSCRIPT lookalike'))).toBeUndefined()
    expect(replyCode('NOSCRIPT')).toBeUndefined()
  })

  it('reads an ioredis error reply from a real server', async () => {
    const { host, port } = await requireSharedRedis()
    const client = new Redis({ host, port, db: TEST_DB })
    try {
      const error = await client.evalsha('0'.repeat(40), 0).catch((e: unknown) => e)
      expect(replyCode(error)).toBe('NOSCRIPT')
    } finally {
      await client.quit()
    }
  })
})
