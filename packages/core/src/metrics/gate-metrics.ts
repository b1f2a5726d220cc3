import type { Admission } from '../degradation/priority-queue/scheduler.js'
import { METRICS } from './catalog.js'
import { type BoundCounter, guardedSink, type MetricsSink } from './sink.js'

/** What a priority queue reports, with its instruments made when it is created. */
export interface QueueMetrics {
  /** What became of a request that asked for a place in queue `lane`. */
  admission(lane: number, admission: Admission): void
  /** Stop reporting the queues' depth (the queue is closed). */
  close(): void
}

/** Why a load shedder shed a request, as `floodgate_shed_total` labels it. */
export type ShedCause = 'in_flight' | 'event_loop_delay'

/** What a load shedder reports. */
export interface ShedMetrics {
  /** A request of class `index` was shed. */
  shed(index: number, cause: ShedCause): void
}

const add = (counter: BoundCounter | undefined) => counter?.add(1)

/**
 * A priority queue's instruments, or `undefined` without a sink: per queue, its wait histogram, its refusal
 * counters, and its depth read (`depthOf(lane)`) whenever metrics are collected.
 */
export function createQueueMetrics(parts: {
  sink: MetricsSink | undefined
  queues: readonly string[]
  depthOf: (lane: number) => number
}): QueueMetrics | undefined {
  const { queues, depthOf } = parts
  if (parts.sink === undefined) return undefined
  const sink = guardedSink(parts.sink)
  const lanes = queues.map((queue, lane) => ({
    wait: sink.histogram(METRICS.queueWait, { queue }),
    full: sink.counter(METRICS.queueRefusals, { queue, reason: 'full' }),
    timeout: sink.counter(METRICS.queueRefusals, { queue, reason: 'timeout' }),
    stop: sink.gauge(METRICS.queueDepth, { queue }, () => depthOf(lane)),
  }))
  return {
    admission(lane, admission) {
      const instruments = lanes[lane]!
      if (admission.kind === 'admitted') {
        instruments.wait.record(admission.waitedMs / 1000)
      } else if (admission.kind === 'full') add(instruments.full)
      else if (admission.kind === 'timeout') add(instruments.timeout)
    },
    close() {
      for (const lane of lanes) lane.stop()
    },
  }
}

/** A load shedder's instruments, or `undefined` without a sink: per class and cause, a counter made now. */
export function createShedMetrics(parts: {
  sink: MetricsSink | undefined
  classes: readonly string[]
}): ShedMetrics | undefined {
  const { classes } = parts
  if (parts.sink === undefined) return undefined
  const sink = guardedSink(parts.sink)
  const counters = classes.map((priority) => ({
    in_flight: sink.counter(METRICS.shed, { priority, cause: 'in_flight' }),
    event_loop_delay: sink.counter(METRICS.shed, { priority, cause: 'event_loop_delay' }),
  }))
  return {
    shed: (index, cause) => add(counters[index]?.[cause]),
  }
}
