import { monotonicClock } from '../../clocks/monotonic-clock.js'
import { NO_HEADERS } from '../../http/answer.js'
import { compileReport } from '../../http/report.js'
import type { RequestInfo } from '../../http/request-info.js'
import { createQueueMetrics } from '../../metrics/gate-metrics.js'
import type { Awaitable } from '../../types.js'
import { parseOptions } from '../../validate.js'
import { answer } from '../answers.js'
import type { Gate, GateEntry, GateOutcome } from '../gate.js'
import { compilePriority } from '../priority.js'
import { systemTimers, type Timers } from '../timers.js'
import type { PriorityQueueOptions } from './options.js'
import { type Admission, createScheduler } from './scheduler.js'
import { priorityQueueSchema } from './schema.js'

/** A {@link Gate} with a look at its queues. */
export interface PriorityQueue<N = any> extends Gate<N> {
  /** Requests being served, and requests waiting in each queue by name. */
  stats(): { inFlight: number; queued: Record<string, number> }
}

/**
 * Create the framework-neutral priority queue the adapters' `priorityQueue()` wrap. Options are validated
 * now (a `RateLimitConfigError` names the option, the value and what is allowed).
 *
 * At most `concurrency` requests are served at once; the others wait in the queue `priority` names, and the
 * queues are drained in the order they are listed. A full queue answers 429, a request that waited `maxWait`
 * 503, both with `Retry-After`; a request whose client goes away leaves its queue at once.
 *
 * @example
 * const queue = createPriorityQueue({ concurrency: 64, queues: { premium: { capacity: 500 }, standard: { capacity: 100 } }, priority })
 * const entry = queue.enter(info); res.once('close', entry.leave); const outcome = await entry.outcome
 */
export function createPriorityQueue<N = any>(options: PriorityQueueOptions<N>): PriorityQueue<N> {
  const o = parseOptions(priorityQueueSchema, options, 'priorityQueue')
  const names = Object.keys(o.queues)
  const report = compileReport<N>(o.onError as PriorityQueueOptions<N>['onError'])
  const classOf = compilePriority<N>({
    priority: o.priority as PriorityQueueOptions<N>['priority'],
    classes: names,
    report,
  })
  const scheduler = createScheduler({
    concurrency: o.concurrency,
    lanes: names.map((name) => ({
      name,
      capacity: o.queues[name]!.capacity,
      maxWaitMs: o.queues[name]!.maxWait ?? o.maxWait,
    })),
    promoteAfterMs: o.promoteAfter === false ? undefined : o.promoteAfter,
    clock: (o.clock as (() => number) | undefined) ?? monotonicClock,
    timers: (o.timers as Timers | undefined) ?? systemTimers,
  })
  const passes = names.map((priority) => ({
    kind: 'pass' as const,
    headers: NO_HEADERS,
    priority,
    waitedMs: 0,
  }))
  const metrics = createQueueMetrics({
    sink: o.metrics,
    queues: names,
    depthOf: (lane) => scheduler.stats().queued[lane]!,
  })

  function outcomeOf(a: Admission, lane: number): GateOutcome {
    const priority = names[lane]!
    if (metrics) metrics.admission(lane, a)
    switch (a.kind) {
      case 'admitted':
        return a.waitedMs === 0
          ? passes[lane]!
          : { kind: 'pass', headers: NO_HEADERS, priority, waitedMs: a.waitedMs }
      case 'left':
        return { kind: 'gone', priority }
      case 'full':
        return answer({ reason: 'queue_full', priority, retryAfterMs: a.retryAfterMs, format: o.format })
      case 'timeout':
        return answer({
          reason: 'queue_timeout',
          priority,
          retryAfterMs: a.retryAfterMs,
          waitedMs: a.waitedMs,
          format: o.format,
        })
    }
  }

  return {
    enter(info: RequestInfo<N>): GateEntry {
      let gone = false
      let leaveTicket: (() => void) | undefined
      const admit = (lane: number): Awaitable<GateOutcome> => {
        if (gone) return { kind: 'gone', priority: names[lane] }
        const ticket = scheduler.enter(lane)
        leaveTicket = ticket.leave
        const a = ticket.admission
        return a instanceof Promise ? a.then((x) => outcomeOf(x, lane)) : outcomeOf(a, lane)
      }
      const lane = classOf(info)
      return {
        outcome: lane instanceof Promise ? lane.then(admit) : admit(lane),
        leave() {
          gone = true
          leaveTicket?.()
        },
      }
    },
    stats() {
      const { inFlight, queued } = scheduler.stats()
      return { inFlight, queued: Object.fromEntries(names.map((n, i) => [n, queued[i]!])) }
    },
    close() {
      scheduler.close()
      metrics?.close()
    },
  }
}
