import type { Duration } from '@floodgate/core'
import type { Awaitable } from '@floodgate/core/internal'
import { duration, fn, parseOptions, positiveInt } from '@floodgate/core/internal'
import * as z from 'zod'
import type { QueueError } from './errors.js'

/** A job as a worker's handler gets it. */
export interface Job {
  readonly id: string
  /** Its lane. */
  readonly queue: string
  readonly payload: string
  /** 1 the first time it is handed out; more after a failure or a crashed worker. */
  readonly attempt: number
}

/** Timers the worker uses (its lease renewals, its reaper, its pause after an error). */
export interface WorkerTimers {
  set(fn: () => void, ms: number): unknown
  clear(handle: unknown): void
}

/** The options of `queue.worker()`. */
export interface WorkerOptions {
  /**
   * Does the job; what it returns (a string) is kept as the job's result for `status(id)`. A throw or a
   * rejection hands the job out again, until `maxAttempts`.
   * @default none: required
   * @example async (job) => JSON.stringify(await render(JSON.parse(job.payload)))
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a handler with nothing to keep returns nothing
  handler: (job: Job) => Awaitable<string | undefined | void>
  /**
   * How many jobs this worker runs at once, each slot with its own blocking connection.
   * @default 1
   * @example 4
   */
  concurrency?: number
  /**
   * How long one BLMPOP waits for a job before it asks again (and how long `stop()` may take to notice).
   * @default '1s'
   * @example '5s'
   */
  block?: Duration
  /**
   * How often this worker gives back what dead workers held (`queue.reap()`); `false` for never.
   * @default half the lease
   * @example '10s'
   */
  reapEvery?: Duration | false
  /**
   * Called with what went wrong (a handler that failed, Redis unavailable), never thrown.
   * @default none: a process warning per code, once
   * @example (error) => log.warn(error)
   */
  onError?: (error: QueueError, job: Job | undefined) => void
  /**
   * The timers of lease renewals, the reaper and the pause after an error; tests pass virtual ones.
   * @default setTimeout / clearTimeout
   * @example virtualTimers(clock)
   */
  timers?: WorkerTimers
}

/** A running worker. */
export interface QueueWorker {
  /** Jobs being worked on now. */
  readonly active: number
  /**
   * Stop taking jobs, let the ones at hand finish for up to `drain` (a job still running then keeps its lease
   * and is handed out again when it runs out), close the connections.
   */
  stop(options?: { drain?: Duration }): Promise<void>
}

const workerSchema = z.strictObject({
  handler: fn('a function (job) => the result, maybe async'),
  concurrency: positiveInt().optional(),
  block: duration().optional(),
  reapEvery: z.union([duration(), z.literal(false)], { error: "a duration like '10s', or false" }).optional(),
  onError: fn('a function (error, job) => void').optional(),
  timers: z
    .custom<WorkerTimers>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        typeof (v as WorkerTimers).set === 'function' &&
        typeof (v as WorkerTimers).clear === 'function',
      { error: 'timers with set(fn, ms) and clear(handle)' },
    )
    .optional(),
})

/**
 * Check `queue.worker()`'s options as the queue's own are checked: a function where the options belong
 * (`queue.worker(fn)`), a missing handler or a bad value throws a `RateLimitConfigError` naming it, at the call.
 */
export function checkWorkerOptions(options: WorkerOptions): void {
  parseOptions(workerSchema, options, 'worker')
}
