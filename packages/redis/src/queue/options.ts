import type { Duration } from '@floodgate/core'
import { duration, fn, parseOptions, positiveInt } from '@floodgate/core/internal'
import * as z from 'zod'

/**
 * The ioredis client the queue talks to (`new Redis(url)` or `new Redis.Cluster(nodes)`): scripts through
 * `evalsha`/`eval`, and `duplicate()` for each worker's blocking connection (BLMPOP holds a connection).
 */
export interface QueueClient {
  evalsha(sha: string, numKeys: number, ...args: string[]): Promise<unknown>
  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>
  del(key: string): Promise<unknown>
  duplicate(): BlockingClient
  readonly status?: string
  readonly isCluster?: boolean
}

/** A worker's own connection: one blocking command at a time. */
export interface BlockingClient {
  call(command: string, ...args: (string | number)[]): Promise<unknown>
  quit(): Promise<unknown>
  disconnect(): void
}

/** One lane of the queue. */
export interface RedisQueueLaneOptions {
  /**
   * How many jobs may wait in this lane; one more is refused (429) at once, atomically with the push.
   * @default none: required
   * @example 500
   */
  capacity: number
}

/** The options of {@link createRedisQueue}. */
export interface RedisQueueOptions {
  /**
   * The ioredis client, standalone or Cluster.
   * @default none: required
   * @example new Redis(process.env.REDIS_URL)
   */
  client: QueueClient
  /**
   * The queue's name: its keys are `prefix:{name}:...`, one hash tag, so a Cluster keeps the whole queue on
   * one slot (its scripts and BLMPOP touch several keys).
   * @default none: required
   * @example 'jobs'
   */
  name: string
  /**
   * The lanes by name, in drain order: workers take from the first while it has jobs, then the next.
   * @default none: required
   * @example { premium: { capacity: 500 }, standard: { capacity: 100 } }
   */
  queues: Record<string, RedisQueueLaneOptions>
  /**
   * Put before every key.
   * @default 'floodgate:queue'
   * @example 'myapp:queue'
   */
  prefix?: string
  /**
   * How long a worker holds a job before it is handed to another (the worker renews it while it works; a
   * worker that dies stops renewing, and the job is given back once the lease runs out).
   * @default '30s'
   * @example '2m'
   */
  lease?: Duration
  /**
   * How many times a job is handed out before it fails for good (a handler that throws, or a worker that
   * dies while holding it).
   * @default 5
   * @example 3
   */
  maxAttempts?: number
  /**
   * How long a finished job's result (and a failed job's reason) stays readable by `status(id)`.
   * @default '1h'
   * @example '1d'
   */
  keepResults?: Duration
  /**
   * The largest payload `enqueue` takes, in bytes (UTF-8); a larger one is refused (413), not stored.
   * @default 1048576 (1 MiB)
   * @example 65536
   */
  maxPayloadBytes?: number
  /**
   * The bound on each call to Redis from `enqueue` and `status`; past it the call answers "unavailable".
   * @default '2s'
   * @example '500ms'
   */
  timeout?: Duration
  /**
   * The time source, in ms. Without it the scripts read the Redis server's clock, so servers' clocks may
   * disagree; tests pass a virtual one.
   * @default the Redis server's TIME
   * @example () => virtualNow
   */
  clock?: () => number
}

/** The defaults of the Redis queue, written once. */
export const REDIS_QUEUE_DEFAULTS = {
  prefix: 'floodgate:queue',
  lease: '30s',
  maxAttempts: 5,
  keepResults: '1h',
  maxPayloadBytes: 1_048_576,
  timeout: '2s',
} as const

const NAME_EXPECTED = "a name of letters, digits and '_ . ~ -', at most 64 characters"
const nameSchema = z.string({ error: NAME_EXPECTED }).regex(/^[\w.~-]{1,64}$/, { error: NAME_EXPECTED })
const D = REDIS_QUEUE_DEFAULTS

const schema = z.strictObject({
  client: z.custom<QueueClient>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      ['evalsha', 'eval', 'duplicate'].every((m) => typeof (v as Record<string, unknown>)[m] === 'function'),
    { error: 'an ioredis client (new Redis() or new Redis.Cluster())' },
  ),
  name: nameSchema,
  queues: z
    .record(nameSchema, z.strictObject({ capacity: positiveInt() }))
    .refine((q) => Object.keys(q).length > 0, {
      error: 'one or more lanes by name, like { standard: { capacity: 100 } }',
    }),
  prefix: z
    .string({ error: 'a string without { or }' })
    .regex(/^[^{}]*$/, { error: 'a string without { or }' })
    .default(D.prefix),
  lease: duration().prefault(D.lease),
  maxAttempts: positiveInt().default(D.maxAttempts),
  keepResults: duration().prefault(D.keepResults),
  maxPayloadBytes: positiveInt().default(D.maxPayloadBytes),
  timeout: duration().prefault(D.timeout),
  clock: fn('a function returning ms').optional(),
})

export type ParsedQueueOptions = z.output<typeof schema>

export const parseQueueOptions = (options: RedisQueueOptions): ParsedQueueOptions =>
  parseOptions(schema, options, 'createRedisQueue')
