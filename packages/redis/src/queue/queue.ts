import { randomUUID } from 'node:crypto'
import { RateLimitConfigError } from '@floodgate/core'
import { CallFailure } from '@floodgate/core/internal'
import { ScriptRunner } from '../script-runner.js'
import type { Script } from '../scripts/index.js'
import { queueKeys } from './keys.js'
import { parseQueueOptions, type RedisQueueOptions } from './options.js'
import { list, num, text } from './replies.js'
import { ENQUEUE, REAP, STATUS } from './scripts/index.js'
import { startWorker } from './worker.js'
import { checkWorkerOptions, type QueueWorker, type WorkerOptions } from './worker-options.js'

/** What `enqueue` did: a value, never an exception. */
export type EnqueueResult =
  /** Stored: `position` in its lane (1 is next), `ahead` jobs before it in every lane. */
  | { accepted: true; id: string; queue: string; position: number; ahead: number }
  /** Its lane holds `capacity` jobs: come back after `retryAfterMs`. */
  | { accepted: false; reason: 'full'; queue: string; retryAfterMs: number }
  /** The payload is over `maxPayloadBytes`: never stored. */
  | { accepted: false; reason: 'too_large'; queue: string; size: number; limit: number }
  /** Redis did not answer in time, or failed. */
  | { accepted: false; reason: 'unavailable'; queue: string; retryAfterMs: number; error: unknown }

/** Where a job is, by its id. */
export type JobStatus =
  | { state: 'queued'; queue: string; position: number; ahead: number }
  | { state: 'active'; queue: string; attempt: number }
  | { state: 'done'; queue: string; result: string }
  | { state: 'failed'; queue: string; reason: string }
  /** Never queued here, its result has expired, or the id is not one of this queue's. */
  | { state: 'unknown' }
  /** Redis did not answer in time, or failed. */
  | { state: 'unavailable'; error: unknown }

/** A priority queue in Redis that several servers share (see {@link createRedisQueue}). */
export interface RedisQueue {
  readonly name: string
  /** The lanes, in drain order. */
  readonly lanes: readonly string[]
  /** Check the lane's capacity and push, atomically (one script). */
  enqueue(queue: string, payload: string): Promise<EnqueueResult>
  /** Where a job is. Any string is safe to pass (an id from a client): one that is no id is `unknown`. */
  status(id: string): Promise<JobStatus>
  /** Start taking jobs, premium lanes first, with one blocking BLMPOP per slot. */
  worker(options: WorkerOptions): QueueWorker
  /** Give back what dead workers held (workers run this every half lease; call it yourself to run it now). */
  reap(): Promise<{ requeued: number; orphans: number; failed: number } | undefined>
}

const ID = /^([\w.~-]{1,64}):[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * A priority queue in Redis for work that outlives the request: `enqueue` answers at once (202 Accepted
 * with the job's id), workers on any server drain the lanes in order (premium before standard), and a job
 * survives the crash of the worker holding it (at-least-once: it is handed out again when its lease runs
 * out). For retries with backoff, schedules, rate-limited workers or flows, reach for a full job queue
 * (BullMQ); this one is the LLEN-then-RPUSH pattern done right.
 *
 * @example
 * const queue = createRedisQueue({ client: new Redis(), name: 'jobs', queues: { premium: { capacity: 500 }, standard: { capacity: 100 } } })
 * const result = await queue.enqueue('premium', JSON.stringify(body))
 * queue.worker({ concurrency: 4, handler: async (job) => JSON.stringify(await work(JSON.parse(job.payload))) })
 */
export function createRedisQueue(options: RedisQueueOptions): RedisQueue {
  const o = parseQueueOptions(options)
  const lanes = Object.keys(o.queues)
  const keys = queueKeys(o.prefix, o.name, lanes)
  const runner = new ScriptRunner(o.client as never, o.timeout)
  const clock = o.clock as (() => number) | undefined
  const run = (script: Script, id: string | undefined, args: readonly (string | number)[]) => {
    const k = keys.keys(id)
    return runner.run(script, k.length, [...k, ...keys.argv(clock?.(), args)])
  }
  // A job popped but never claimed is put back once it has been seen so for this long.
  const grace = Math.max(1000, Math.min(o.lease / 2, 5000))
  async function reap() {
    const reply = await run(REAP, undefined, [o.maxAttempts, grace, o.keepResults])
    const fields = list(reply)
    if (reply instanceof CallFailure || !fields) return undefined
    return { requeued: num(fields[0]), orphans: num(fields[1]), failed: num(fields[2]) }
  }
  const context = { client: o.client, keys, lanes, run, options: o, reap }

  return {
    name: o.name,
    lanes,
    async enqueue(queue, payload) {
      const lane = lanes.indexOf(queue)
      if (lane < 0 || typeof payload !== 'string') {
        throw new RateLimitConfigError(
          'ERR_FLOODGATE_INVALID_OPTION',
          lane < 0 ? 'enqueue.queue' : 'enqueue.payload',
          lane < 0 ? queue : payload,
          lane < 0 ? `one of the lanes (${lanes.join(', ')})` : 'a string (serialise your job)',
        )
      }
      const size = Buffer.byteLength(payload)
      if (size > o.maxPayloadBytes)
        return { accepted: false, reason: 'too_large', queue, size, limit: o.maxPayloadBytes }
      const id = `${queue}:${randomUUID()}`
      const reply = await run(ENQUEUE, undefined, [lane + 1, id, payload, o.queues[queue]!.capacity])
      if (reply instanceof CallFailure)
        return { accepted: false, reason: 'unavailable', queue, retryAfterMs: 1000, error: reply.error }
      const fields = list(reply) ?? []
      if (num(fields[0]) === 1)
        return { accepted: true, id, queue, position: num(fields[1]), ahead: num(fields[2]) }
      return { accepted: false, reason: 'full', queue, retryAfterMs: num(fields[1]) }
    },
    async status(id) {
      const match = typeof id === 'string' ? ID.exec(id) : null
      if (!match || !lanes.includes(match[1]!)) return { state: 'unknown' }
      const queue = match[1]!
      const reply = await run(STATUS, id, [id])
      if (reply instanceof CallFailure) return { state: 'unavailable', error: reply.error }
      const fields = list(reply) ?? []
      switch (text(fields[0])) {
        case 'done':
          return { state: 'done', queue, result: text(fields[1]) }
        case 'failed':
          return { state: 'failed', queue, reason: text(fields[1]) }
        case 'active':
          return { state: 'active', queue, attempt: num(fields[1]) }
        case 'queued':
          return { state: 'queued', queue, position: num(fields[1]), ahead: num(fields[2]) }
        default:
          return { state: 'unknown' }
      }
    },
    worker(workerOptions) {
      checkWorkerOptions(workerOptions)
      return startWorker(context, workerOptions)
    },
    reap,
  }
}
