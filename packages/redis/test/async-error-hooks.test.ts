// Regression: an `onError` that returned a rejected promise (an async logger whose sink is down) was an
// unhandled rejection, and the process exited: the RedisStore's and the SyncedStore's (through the reporter
// they share), and the queue worker's. A hook that threw was already ignored; one that rejects is now too, on a
// real redis-server this file starts and freezes (SIGSTOP: connected, never answering), and on the shared Redis for the queue. The queue's worker also
// checks its options at the call: `queue.worker(fn)` was accepted, and every job then failed.
import { createLimiter, fixedWindow } from '@floodgate/core'
import { bounded, type RedisServer, startRedis, watchUnhandled } from '@floodgate/test-harness'
import type { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { createRedisQueue, type QueueWorker, RedisStore, SyncedStore } from '../src/index.js'
import { openClient, sharedClient } from './helpers.js'
import { fill, queueName, until } from './queue-helpers.js'

const unhandled = watchUnhandled()
beforeEach(() => {
  unhandled.splice(0)
})

/** Let rejections made by the last call settle (an unhandled one is reported after the microtasks). */
const settled = () => new Promise((resolve) => setImmediate(resolve))

/** An error hook whose log sink is down: it rejects, and counts its calls. */
function rejectingHook() {
  const hook = { calls: 0, onError: async (_error: Error) => {} }
  hook.onError = async () => {
    hook.calls++
    throw new Error('log sink is down')
  }
  return hook
}

const algorithm = fixedWindow({ limit: 100, window: '1h' })

describe('stores on a redis-server that freezes: an async onError that rejects', () => {
  let server: RedisServer
  let client: ReturnType<typeof openClient>
  beforeEach(async () => {
    server = await startRedis()
    const opened = openClient('ioredis', { port: server.port }, { reconnect: true })
    client = opened
    await opened.ready
  })
  afterEach(async () => {
    server.resume()
    await client.close()
    await server.stop()
  })

  it("RedisStore: the decision still arrives by the limiter's fail mode, nothing is left unhandled", async () => {
    const hook = rejectingHook()
    const store = new RedisStore({ client: client.client, onError: hook.onError })
    const limiter = createLimiter({ store, algorithm, storeTimeout: '200ms' })
    expect((await store.consume(algorithm, 'k', 1)).source).toBe('redis')
    // Frozen, the client stays connected: the call is sent and times out (a client that saw the connection
    // drop would let the circuit answer at once, with nothing to report).
    server.pause()
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, source: 'fail-open' })
    // The failure is reported when the call settles (at its timeout).
    await until(() => hook.calls >= 1, 'onError to be told')
    await settled()
    expect(unhandled).toEqual([])
    await store.close()
  })

  it('SyncedStore: a failed read is decided locally, nothing is left unhandled', async () => {
    const hook = rejectingHook()
    const store = new SyncedStore({
      store: bounded(new RedisStore({ client: client.client }), 200),
      processes: 2,
      onError: hook.onError,
    })
    server.pause()
    const decision = await store.consume(algorithm, 'fresh', 1)
    expect(decision).toMatchObject({ allowed: true, source: 'offline' })
    await until(() => hook.calls >= 1, 'onError to be told')
    await settled()
    expect(unhandled).toEqual([])
    await store.close()
  })
})

describe('the Redis queue on the shared Redis', () => {
  let shared: Redis
  const workers: QueueWorker[] = []
  beforeAll(async () => {
    shared = await sharedClient()
  })
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop({ drain: '1s' })))
    await shared?.quit()
  })

  it("a worker's async onError that rejects on a failed job: the worker goes on, nothing is left unhandled", async () => {
    const queue = createRedisQueue({
      client: shared,
      name: queueName('hooks'),
      queues: { standard: { capacity: 10 } },
      maxAttempts: 1,
    })
    const ids = await fill(queue, 'standard', 2)
    const hook = rejectingHook()
    let runs = 0
    workers.push(
      queue.worker({
        block: '200ms',
        handler: async (job) => {
          runs++
          if (job.id === ids[0]) throw new Error('render crashed')
          return 'rendered'
        },
        onError: hook.onError,
      }),
    )
    await until(async () => (await queue.status(ids[1]!)).state === 'done', 'the second job')
    expect(await queue.status(ids[0]!)).toMatchObject({ state: 'failed', reason: 'render crashed' })
    expect(runs).toBe(2)
    await settled()
    expect(hook.calls).toBe(1)
    expect(unhandled).toEqual([])
  })

  it('queue.worker(fn) and a worker without a handler throw at the call, naming what was expected', () => {
    const queue = createRedisQueue({
      client: shared,
      name: queueName('args'),
      queues: { standard: { capacity: 1 } },
    })
    const handler = async () => 'done'
    expect(() => queue.worker(handler as never)).toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION', option: 'worker' }),
    )
    expect(() => queue.worker(handler as never)).toThrow(/Expected `worker` to be an object of options/)
    expect(() => queue.worker({} as never)).toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_INVALID_OPTION', option: 'worker.handler' }),
    )
    expect(() => queue.worker({ handler, concurrency: 0 })).toThrow(
      expect.objectContaining({ option: 'worker.concurrency' }),
    )
    expect(() => queue.worker({ handler, block: 'soon' as never })).toThrow(
      expect.objectContaining({ option: 'worker.block' }),
    )
    expect(() => queue.worker({ handler, hanlder: handler } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_FLOODGATE_UNKNOWN_OPTION', option: 'worker.hanlder' }),
    )
  })
})
