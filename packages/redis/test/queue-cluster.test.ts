// The Redis queue on a real 3-master Redis Cluster: every key of a queue under one hash tag, so the scripts
// and BLMPOP (several keys each) run on one slot; capacity, drain order and status as on one Redis.
import { type RedisCluster, startRedisCluster } from '@floodgate/test-harness'
import { Cluster } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisQueue, keySlot, type QueueWorker } from '../src/index.js'
import { fill, heldHandler, queueName, SEED_LANES, until } from './queue-helpers.js'

let cluster: RedisCluster
let client: Cluster
const workers: QueueWorker[] = []
beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 })
  client = new Cluster(cluster.nodes)
})
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop({ drain: '1s' })))
  await client?.quit()
  await cluster?.stop()
})

describe('createRedisQueue on a Redis Cluster', () => {
  it('keeps a queue on one slot, and queues of different names on different slots', () => {
    const names = ['jobs', 'emails', 'reports', 'exports']
    const slots = names.map((n) => keySlot(`floodgate:queue:{${n}}:pending:premium`))
    for (const n of names) {
      expect(keySlot(`floodgate:queue:{${n}}:pending:standard`)).toBe(keySlot(`floodgate:queue:{${n}}:jobs`))
    }
    expect(new Set(slots).size).toBeGreaterThan(1)
  })

  it('checks capacity and pushes atomically: 150 at once into a lane of 50 leave exactly 50', async () => {
    const queue = createRedisQueue({
      client,
      name: queueName('cluster-cap'),
      queues: { standard: { capacity: 50 } },
    })
    const results = await Promise.all(
      Array.from({ length: 150 }, (_, i) => queue.enqueue('standard', `j${i}`)),
    )
    expect(results.filter((r) => r.accepted)).toHaveLength(50)
    expect(results.find((r) => !r.accepted)).toMatchObject({ reason: 'full' })
  })

  it('drains premium first with BLMPOP over the lanes, and reports status', async () => {
    const queue = createRedisQueue({ client, name: queueName('cluster-drain'), queues: SEED_LANES })
    const [s0] = await fill(queue, 'standard', 2)
    await fill(queue, 'premium', 2)
    expect(await queue.status(s0!)).toEqual({ state: 'queued', queue: 'standard', position: 0, ahead: 2 })
    const held = heldHandler()
    const worker = queue.worker({ handler: held.handler, block: '200ms' })
    workers.push(worker)
    for (let n = 1; n <= 4; n++) {
      await until(() => held.started.length === n, `job ${n}`)
      held.release(`done-${n}`)
    }
    expect(held.started.map((j) => j.payload)).toEqual(['premium-0', 'premium-1', 'standard-0', 'standard-1'])
    await until(async () => (await queue.status(s0!)).state === 'done')
    expect(await queue.status(s0!)).toEqual({ state: 'done', queue: 'standard', result: 'done-3' })
  })
})
