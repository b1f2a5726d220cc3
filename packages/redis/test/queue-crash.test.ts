// A worker killed mid-job (SIGKILL, a forked process): the job is not lost. Its lease runs out, the reaper
// puts it back at the front of its lane, and another worker finishes it (at-least-once).
import { type ChildProcess, fork } from 'node:child_process'
import { type RedisServer, startRedis } from '@floodgate/test-harness'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisQueue } from '../src/index.js'
import { bundleRedisFixture } from './fixtures/fork-fixture.js'
import { heldHandler, queueName, until } from './queue-helpers.js'

let server: RedisServer
let client: Redis
let bundle: { file: string; remove: () => void }
let child: ChildProcess | undefined

beforeAll(async () => {
  server = await startRedis()
  client = new Redis(server.url)
  bundle = await bundleRedisFixture('queue-worker')
}, 60_000)
afterAll(async () => {
  child?.kill('SIGKILL')
  await client?.quit()
  await server?.stop()
  bundle?.remove()
})

const next = <T>(c: ChildProcess, test: (m: any) => boolean) =>
  new Promise<T>((resolve, reject) => {
    c.once('exit', (code) => reject(new Error(`the worker exited (code ${code})`)))
    const onMessage = (m: unknown) => {
      if (!test(m)) return
      c.off('message', onMessage)
      resolve(m as T)
    }
    c.on('message', onMessage)
  })

describe('a queue worker killed mid-job', () => {
  it('loses nothing: the job is handed out again once its lease runs out, and finished', async () => {
    const name = queueName('crash')
    const lanes = { premium: { capacity: 10 }, standard: { capacity: 10 } }
    const producer = createRedisQueue({ client, name, queues: lanes })
    const accepted = await producer.enqueue('premium', '{"report":42}')
    if (!accepted.accepted) throw new Error('not accepted')

    child = fork(bundle.file, [server.url, name], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    const started = await next<{ started: string; attempt: number }>(child, (m) => 'started' in m)
    expect(started).toEqual({ started: accepted.id, attempt: 1 })
    expect(await producer.status(accepted.id)).toMatchObject({ state: 'active', attempt: 1 })
    const exited = new Promise((resolve) => child!.once('exit', resolve))
    child.kill('SIGKILL')
    await exited

    // Still active: its lease (30 s) has not run out. A reaper whose clock is past it gives the job back.
    expect(await producer.reap()).toEqual({ requeued: 0, orphans: 0, failed: 0 })
    const later = createRedisQueue({ client, name, queues: lanes, clock: () => Date.now() + 31_000 })
    expect(await later.reap()).toEqual({ requeued: 1, orphans: 0, failed: 0 })
    expect(await producer.status(accepted.id)).toEqual({
      state: 'queued',
      queue: 'premium',
      position: 0,
      ahead: 0,
    })

    const held = heldHandler()
    const worker = producer.worker({ handler: held.handler, block: '200ms', reapEvery: false })
    await until(() => held.started.length === 1)
    expect(held.started[0]).toMatchObject({ id: accepted.id, attempt: 2, payload: '{"report":42}' })
    held.release('{"pages":3}')
    await until(async () => (await producer.status(accepted.id)).state === 'done')
    expect(await producer.status(accepted.id)).toEqual({
      state: 'done',
      queue: 'premium',
      result: '{"pages":3}',
    })
    await worker.stop()
  })
})
