import { callHook, hookFailed } from '../guarded-call.js'

/** What kind of instrument a metric is. */
export type MetricKind = 'counter' | 'histogram' | 'gauge'

/**
 * One metric Floodgate reports: its name in both conventions, its unit, what it counts and its labels. The
 * same definition reaches every sink, so every binding exports the same names (see `METRICS`).
 */
export interface MetricDefinition {
  readonly kind: MetricKind
  /** The OpenTelemetry instrument name: `floodgate.decisions`. */
  readonly name: string
  /**
   * The Prometheus name, as OpenTelemetry's Prometheus exporter would write `name`: dots to underscores, the
   * unit as a suffix (`_seconds`), `_total` on counters: `floodgate_decisions_total`.
   */
  readonly prometheusName: string
  /** The unit, UCUM as OpenTelemetry's semantic conventions write it: `s`, or a count such as `{decision}`. */
  readonly unit: string
  /** One sentence: what it counts, and when it moves. */
  readonly description: string
  /** The label (attribute) names, each with a bounded set of values: never a client's key, address or path. */
  readonly labels: readonly string[]
  /** A histogram's bucket boundaries, in `unit`. */
  readonly buckets?: readonly number[]
}

/** Label values by label name, bound once when an instrument is made: never built per request. */
export type MetricLabels = Readonly<Record<string, string>>

/** A counter with its label values bound. */
export interface BoundCounter {
  /** Add `value` (> 0). */
  add(value: number): void
}

/** A histogram with its label values bound. */
export interface BoundHistogram {
  /** Record one observation, in the metric's unit. */
  record(value: number): void
}

/**
 * Where Floodgate's limiter, stores, queues and shedders report what they do. `@floodgate/metrics` has one for
 * Prometheus (`prometheus({ register })`) and one for OpenTelemetry (`openTelemetry({ meter })`); any object
 * with these three methods is one.
 *
 * Floodgate asks for an instrument once per label set, when it is created or when it first meets a policy,
 * and keeps it: a request only calls `add` or `record` on instruments it already holds, and a limiter, store or
 * gate without a sink does nothing at all. Asking twice for the same metric and labels must give an
 * instrument that counts into the same series (two limiters may share a sink).
 */
export interface MetricsSink {
  /** The counter of `metric` with `labels`. */
  counter(metric: MetricDefinition, labels: MetricLabels): BoundCounter
  /** The histogram of `metric` with `labels`. */
  histogram(metric: MetricDefinition, labels: MetricLabels): BoundHistogram
  /**
   * Report `read()` as the value of `metric` with `labels` whenever metrics are collected, until the function
   * returned is called. Several readers of one label set add up (two queues of one name: their total depth).
   */
  gauge(metric: MetricDefinition, labels: MetricLabels, read: () => number): () => void
  /**
   * The share of a policy's limit below which an allowed decision's `remaining` counts as near the limit
   * (`floodgate_near_limit_total`): 0.2 counts the decisions that left less than a fifth of the limit.
   * @default 0.2
   * @example 0.1
   */
  readonly nearLimit?: number
}

/**
 * `sink` with every instrument it makes called through the guard (`callHook`): an `add`, a `record` or a gauge's
 * stop that throws or rejects (a sink that sends over the network, say) is ignored, with a process warning
 * once, and never fails a request nor ends the process. Every limiter, store, queue and shedder takes its sink
 * through this, once, when it is created.
 *
 * @example
 * const sink = guardedSink(options.metrics)
 */
export function guardedSink(sink: MetricsSink): MetricsSink {
  const failed = hookFailed('metrics')
  return {
    nearLimit: sink.nearLimit,
    counter(metric, labels) {
      const counter = sink.counter(metric, labels)
      const add = counter.add.bind(counter)
      return { add: (value) => callHook(add, failed, value) }
    },
    histogram(metric, labels) {
      const histogram = sink.histogram(metric, labels)
      const record = histogram.record.bind(histogram)
      return { record: (value) => callHook(record, failed, value) }
    },
    gauge(metric, labels, read) {
      const stop = sink.gauge(metric, labels, read)
      return () => callHook(stop, failed)
    },
  }
}
