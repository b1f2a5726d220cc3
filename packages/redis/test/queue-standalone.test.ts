// The Redis queue on the shared Redis: the capacity check and the push as one script (where LLEN then RPUSH
// races), 202 with an id, workers draining premium first with one BLMPOP, status, retries, and jobs that
// survive a hung worker or one that died between its pop and its claim (at-least-once).
import type { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisQueue, type QueueWorker, queueAnswer, type RedisQueueOptions } from '../src/index.js'
import { sharedClient } from './helpers.js'
import { fill, heldHandler, queueName, SEED_LANES, until } from './queue-helpers.js'

let client: Redis
const workers: QueueWorker[] = []
beforeAll(async () => {
  client = await sharedClient()
})
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop({ drain: '1s' })))
  await client?.quit()
})

const queueOf = (over: Partial<RedisQueueOptions> = {}) =>
  createRedisQueue({ client, name: queueName('q'), queues: SEED_LANES, ...over })
const started = (w: QueueWorker) => {
  workers.push(w)
  return w
}

describe('createRedisQueue on one Redis', () => {
  it('answers 202 with an id and its place; a full lane 429 with Retry-After, atomically', async () => {
    const queue = queueOf({ queues: { premium: { capacity: 3 }, standard: { capacity: 2 } } })
    await fill(queue, 'premium', 2)
    const first = await queue.enqueue('standard', 'a')
    expect(first).toMatchObject({ accepted: true, queue: 'standard', position: 1, ahead: 2 })
    const answer = queueAnswer(first, { location: (id) => `/jobs/${id}` })
    expect(answer.status).toBe(202)
    expect(answer.headers.location).toBe(`/jobs/${(first as { id: string }).id}`)
    expect(JSON.parse(answer.body)).toMatchObject({ queue: 'standard', position: 1, ahead: 2 })
    await queue.enqueue('standard', 'b')
    const full = await queue.enqueue('standard', 'c')
    expect(full).toMatchObject({ accepted: false, reason: 'full', queue: 'standard' })
    // No job has finished yet: one second a job for the two premium jobs and the standard lane's first.
    expect((full as { retryAfterMs: number }).retryAfterMs).toBe(3000)
    const refused = queueAnswer(full)
    expect(refused).toMatchObject({
      status: 429,
      headers: { 'retry-after': '3', 'cache-control': 'no-store' },
    })
    expect(JSON.parse(refused.body)).toMatchObject({ error: 'queue_full', queue: 'standard', retryAfter: 3 })
  })

  it('the capacity check and the push are one: 300 at once into a lane of 100 leave exactly 100', async () => {
    const queue = queueOf({ queues: { standard: { capacity: 100 } } })
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) => queue.enqueue('standard', `job-${i}`)),
    )
    expect(results.filter((r) => r.accepted)).toHaveLength(100)
    // LLEN then RPUSH as the common recipe writes it, for contrast: every check sees room before any push lands.
    const list = `${queueName('naive')}:{naive}:standard`
    const naive = await Promise.all(
      Array.from({ length: 300 }, async (_, i) => {
        if ((await client.llen(list)) >= 100) return false
        await client.rpush(list, `job-${i}`)
        return true
      }),
    )
    expect(naive.filter(Boolean).length).toBeGreaterThan(100)
    await client.del(list)
  })

  it('workers take premium first with one blocking BLMPOP, standard once premium is empty', async () => {
    const queue = queueOf()
    await fill(queue, 'standard', 3)
    await fill(queue, 'premium', 2)
    const held = heldHandler()
    started(queue.worker({ handler: held.handler, block: '200ms' }))
    for (let n = 1; n <= 5; n++) {
      await until(() => held.started.length === n, `job ${n}`)
      held.release()
    }
    expect(held.started.map((j) => j.payload)).toEqual([
      'premium-0',
      'premium-1',
      'standard-0',
      'standard-1',
      'standard-2',
    ])
    // A job that arrives while the worker waits in BLMPOP is taken at once.
    await fill(queue, 'standard', 1, 'late')
    await until(() => held.started.length === 6, 'the late job')
    held.release()
  })

  it('status follows a job: queued with its place, active, done with its result', async () => {
    const queue = queueOf()
    const [a, b] = await fill(queue, 'standard', 2)
    await fill(queue, 'premium', 1)
    expect(await queue.status(b!)).toEqual({ state: 'queued', queue: 'standard', position: 1, ahead: 2 })
    const held = heldHandler()
    started(queue.worker({ handler: held.handler, block: '200ms' }))
    await until(() => held.started.length === 1)
    held.release()
    await until(() => held.started.length === 2)
    expect(await queue.status(a!)).toEqual({ state: 'active', queue: 'standard', attempt: 1 })
    held.release('{"rendered":true}')
    await until(async () => (await queue.status(a!)).state === 'done')
    expect(await queue.status(a!)).toEqual({ state: 'done', queue: 'standard', result: '{"rendered":true}' })
    for (const odd of [
      '',
      'standard:not-a-uuid',
      'gold:00000000-0000-4000-8000-000000000000',
      '{x}',
      'x'.repeat(5000),
    ]) {
      expect(await queue.status(odd)).toEqual({ state: 'unknown' })
    }
  })

  it('a handler that throws runs the job again, then fails it for good after maxAttempts', async () => {
    const queue = queueOf({ maxAttempts: 2 })
    const [id] = await fill(queue, 'standard', 1)
    const errors: string[] = []
    const held = heldHandler()
    started(queue.worker({ handler: held.handler, block: '200ms', onError: (e) => errors.push(e.code) }))
    await until(() => held.started.length === 1)
    held.fail('render crashed')
    await until(() => held.started.length === 2)
    expect(held.started[1]!.attempt).toBe(2)
    held.fail('render crashed again')
    await until(async () => (await queue.status(id!)).state === 'failed')
    expect(await queue.status(id!)).toEqual({
      state: 'failed',
      queue: 'standard',
      reason: 'render crashed again',
    })
    expect(errors).toEqual(['ERR_FLOODGATE_JOB_FAILED', 'ERR_FLOODGATE_JOB_FAILED'])
  })

  it('a lease that runs out (the worker hung) hands the job to another worker', async () => {
    let now = Date.UTC(2026, 0, 1)
    const name = queueName('lease')
    const options: RedisQueueOptions = { client, name, queues: SEED_LANES, lease: '10s', clock: () => now }
    const queue = createRedisQueue(options)
    const [id] = await fill(queue, 'premium', 1)
    const hung = heldHandler()
    started(queue.worker({ handler: hung.handler, block: '200ms', reapEvery: false }))
    await until(() => hung.started.length === 1)
    expect(await queue.reap()).toEqual({ requeued: 0, orphans: 0, failed: 0 })
    now += 10_001
    expect(await queue.reap()).toEqual({ requeued: 1, orphans: 0, failed: 0 })
    const other = heldHandler()
    started(createRedisQueue(options).worker({ handler: other.handler, block: '200ms', reapEvery: false }))
    await until(() => other.started.length === 1, 'the other worker to take the job')
    expect(other.started[0]).toMatchObject({ id, attempt: 2, payload: 'premium-0' })
    other.release('second try')
    await until(async () => (await queue.status(id!)).state === 'done')
  })

  it('a job popped by a worker that died before claiming it is put back after the grace period', async () => {
    let now = Date.UTC(2026, 0, 1)
    const queue = createRedisQueue({
      client,
      name: queueName('orphan'),
      queues: SEED_LANES,
      lease: '10s',
      clock: () => now,
    })
    const [id] = await fill(queue, 'standard', 1)
    // What a dying worker's BLMPOP did: the id left the list, and no claim followed.
    const dying = client.duplicate()
    const key = `floodgate:queue:{${queue.name}}:pending:standard`
    expect(
      await dying.call('BLMPOP', '1', '2', `floodgate:queue:{${queue.name}}:pending:premium`, key, 'LEFT'),
    ).toEqual([key, [id]])
    dying.disconnect()
    expect(await queue.status(id!)).toEqual({ state: 'queued', queue: 'standard', position: -1, ahead: -1 })
    expect(await queue.reap()).toEqual({ requeued: 0, orphans: 0, failed: 0 }) // seen, marked
    now += 4_999
    expect((await queue.reap())?.orphans).toBe(0) // a live worker would have claimed it by now
    now += 1
    expect((await queue.reap())?.orphans).toBe(1)
    const held = heldHandler()
    started(queue.worker({ handler: held.handler, block: '200ms', reapEvery: false }))
    await until(() => held.started.length === 1)
    expect(held.started[0]).toMatchObject({ id, attempt: 1 })
    held.release()
  })

  it('refuses a payload over maxPayloadBytes (413) without storing it', async () => {
    const queue = queueOf({ maxPayloadBytes: 10 })
    const result = await queue.enqueue('standard', 'é'.repeat(6))
    expect(result).toEqual({ accepted: false, reason: 'too_large', queue: 'standard', size: 12, limit: 10 })
    expect(queueAnswer(result).status).toBe(413)
    await expect(queue.enqueue('gold', 'x')).rejects.toMatchObject({
      code: 'ERR_FLOODGATE_INVALID_OPTION',
      option: 'enqueue.queue',
    })
  })

  it('validates its options at creation', () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ name: 'a{b}' }, 'createRedisQueue.name'],
      [{ queues: {} }, 'createRedisQueue.queues'],
      [{ queues: { a: { capacity: 0 } } }, 'createRedisQueue.queues.a.capacity'],
      [{ lease: 'long' }, 'createRedisQueue.lease'],
      [{ client: {} }, 'createRedisQueue.client'],
      [{ retries: 3 }, 'createRedisQueue.retries'],
    ]
    for (const [over, option] of bad) {
      expect(
        () => createRedisQueue({ client, name: 'x', queues: SEED_LANES, ...over } as never),
        option,
      ).toThrow(expect.objectContaining({ option }))
    }
  })
})
