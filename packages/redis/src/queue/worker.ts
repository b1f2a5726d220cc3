import {
  CallFailure,
  callHook,
  guardedCall,
  HookFailure,
  hookFailed,
  parseDuration,
  type Settled,
} from '@floodgate/core/internal'
import type { Script } from '../scripts/index.js'
import { QueueError } from './errors.js'
import type { QueueKeys } from './keys.js'
import type { BlockingClient, ParsedQueueOptions, QueueClient } from './options.js'
import { list, num, text } from './replies.js'
import { ACK, CLAIM, FAIL, RENEW } from './scripts/index.js'
import type { Job, QueueWorker, WorkerOptions, WorkerTimers } from './worker-options.js'

interface WorkerContext {
  client: QueueClient
  keys: QueueKeys
  lanes: readonly string[]
  run(script: Script, id: string | undefined, args: readonly (string | number)[]): Promise<Settled>
  options: ParsedQueueOptions
  reap(): Promise<unknown>
}

const systemTimers: WorkerTimers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as never),
}

function warnOnce(): (error: QueueError) => void {
  const seen = new Set<string>()
  return (error) => {
    if (seen.has(error.code)) return
    seen.add(error.code)
    process.emitWarning(
      `@floodgate/redis queue: ${error.message} (reported once; pass onError to see every one)`,
      {
        type: 'FloodgateWarning',
        code: error.code,
      },
    )
  }
}

/**
 * Run a worker: each slot blocks on one BLMPOP over the lanes' lists in drain order (so it takes from the
 * first lane that has a job), claims the job (a lease), runs the handler while renewing the lease, then
 * acknowledges it (result kept) or hands it back. The reaper gives back what dead workers held.
 */
export function startWorker(context: WorkerContext, options: WorkerOptions): QueueWorker {
  const { keys, run } = context
  const o = context.options
  const concurrency = options.concurrency ?? 1
  const blockSeconds = String(parseDuration(options.block ?? '1s', 'worker.block') / 1000)
  const reapEvery =
    options.reapEvery === false
      ? undefined
      : parseDuration(options.reapEvery ?? o.lease / 2, 'worker.reapEvery')
  const timers = options.timers ?? systemTimers
  const onError = options.onError
  const fallback = warnOnce()
  const onErrorFailed = hookFailed('onError')
  // A failing error hook (a throw or a rejection) must not stop the worker, nor end the process.
  const report = (error: QueueError, job?: Job) => {
    if (onError) callHook(onError, onErrorFailed, error, job)
    else fallback(error)
  }
  const unavailable = (cause: unknown) =>
    new QueueError(
      'ERR_FLOODGATE_QUEUE_UNAVAILABLE',
      `Redis failed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    )
  const pause = (ms: number) => new Promise<void>((resolve) => timers.set(resolve, ms))
  let stopped = false
  let active = 0
  const connections: BlockingClient[] = []

  async function work(job: Job): Promise<void> {
    active++
    let renewal: unknown
    const renew = () => {
      renewal = timers.set(() => {
        void run(RENEW, undefined, [job.id, o.lease]).then(() => {
          if (renewal !== undefined) renew()
        })
      }, o.lease / 3)
    }
    renew()
    try {
      const result = await guardedCall(options.handler, job)
      if (result instanceof HookFailure) {
        const { error } = result
        timers.clear(renewal)
        renewal = undefined
        const reason = error instanceof Error ? error.message : String(error)
        report(
          new QueueError('ERR_FLOODGATE_JOB_FAILED', `Job ${job.id} failed: ${reason}`, {
            cause: error,
            jobId: job.id,
          }),
          job,
        )
        const failed = await run(FAIL, undefined, [job.id, reason, o.maxAttempts])
        if (failed instanceof CallFailure) report(unavailable(failed.error), job)
        return
      }
      timers.clear(renewal)
      renewal = undefined
      const acked = await run(ACK, job.id, [job.id, typeof result === 'string' ? result : '', o.keepResults])
      if (acked instanceof CallFailure) report(unavailable(acked.error), job)
    } finally {
      if (renewal !== undefined) timers.clear(renewal)
      renewal = undefined
      active--
    }
  }

  async function slot(connection: BlockingClient): Promise<void> {
    while (!stopped) {
      let popped: unknown
      try {
        popped = await connection.call('BLMPOP', blockSeconds, keys.pending.length, ...keys.pending, 'LEFT')
      } catch (error) {
        if (stopped) return
        report(unavailable(error))
        await pause(1000)
        continue
      }
      const entry = list(popped)
      const id = entry ? text(list(entry[1])?.[0]) : undefined
      if (!id) continue
      // A worker that dies here leaves the job unclaimed: the reaper puts it back after a grace period.
      const claimed = await run(CLAIM, undefined, [id, o.lease])
      if (claimed instanceof CallFailure) {
        report(unavailable(claimed.error))
        continue
      }
      const fields = list(claimed)
      if (!fields) continue
      await work({
        id,
        queue: id.slice(0, id.length - 37),
        payload: text(fields[0]),
        attempt: num(fields[1]),
      })
    }
  }

  const slots = Array.from({ length: concurrency }, () => {
    const connection = context.client.duplicate()
    connections.push(connection)
    return slot(connection)
  })

  let reaper: unknown
  const reap = () => {
    reaper = timers.set(() => {
      if (stopped) return
      void context.reap().then(() => {
        if (!stopped) reap()
      })
    }, reapEvery!)
  }
  if (reapEvery !== undefined) reap()

  return {
    get active() {
      return active
    },
    async stop(stopOptions = {}) {
      stopped = true
      if (reaper !== undefined) timers.clear(reaper)
      const drainMs = parseDuration(stopOptions.drain ?? '30s', 'stop.drain')
      let drained: unknown
      await Promise.race([
        Promise.all(slots),
        new Promise<void>((resolve) => {
          drained = timers.set(resolve, drainMs)
        }),
      ])
      timers.clear(drained)
      await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())))
    },
  }
}
