import type { MetricsSink } from '@floodgate/core'
import type { MetricDefinition, MetricLabels } from '@floodgate/core/internal'

/** A series' name and labels as one string: `floodgate.decisions{outcome="allowed",policy="ip"}`. */
export const seriesKey = (name: string, labels: MetricLabels = {}): string =>
  `${name}{${Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(',')}}`

/** A metrics sink that keeps everything it is told, for tests: what Floodgate reported, and how. */
export interface RecordingSink extends MetricsSink {
  /** A counter's total (0 when it was never made or never added to). */
  count(name: string, labels?: MetricLabels): number
  /** A histogram's observations, in order. */
  observations(name: string, labels?: MetricLabels): number[]
  /** A gauge's value now: its readers' sum, or `undefined` when none is registered. */
  gaugeValue(name: string, labels?: MetricLabels): number | undefined
  /** Every series made, by key (see {@link seriesKey}), with its definition. */
  readonly made: Map<string, MetricDefinition>
  /** How many times an instrument was asked for: Floodgate makes them once, never per request. */
  readonly instrumentsMade: () => number
}

/**
 * A sink that records every value in memory. Instruments asked for twice with the same labels count into
 * the same series, as a real binding's do; a label outside the definition's `labels` throws.
 */
export function recordingSink(options: { nearLimit?: number } = {}): RecordingSink {
  const counts = new Map<string, number>()
  const observed = new Map<string, number[]>()
  const readers = new Map<string, Set<() => number>>()
  const made = new Map<string, MetricDefinition>()
  let asked = 0
  const make = (metric: MetricDefinition, labels: MetricLabels, kind: MetricDefinition['kind']) => {
    if (metric.kind !== kind) throw new TypeError(`${metric.name} is a ${metric.kind}, not a ${kind}`)
    const extra = Object.keys(labels).filter((label) => !metric.labels.includes(label))
    const missing = metric.labels.filter((label) => !(label in labels))
    if (extra.length > 0 || missing.length > 0) {
      throw new TypeError(`${metric.name} has labels ${metric.labels.join(', ')}; got ${Object.keys(labels)}`)
    }
    asked++
    const key = seriesKey(metric.name, labels)
    made.set(key, metric)
    return key
  }
  return {
    nearLimit: options.nearLimit,
    counter(metric, labels) {
      const key = make(metric, labels, 'counter')
      if (!counts.has(key)) counts.set(key, 0)
      return {
        add(value) {
          if (!(value > 0)) throw new RangeError(`a counter adds a value > 0, got ${value}`)
          counts.set(key, counts.get(key)! + value)
        },
      }
    },
    histogram(metric, labels) {
      const key = make(metric, labels, 'histogram')
      if (!observed.has(key)) observed.set(key, [])
      return { record: (value) => void observed.get(key)!.push(value) }
    },
    gauge(metric, labels, read) {
      const key = make(metric, labels, 'gauge')
      const set = readers.get(key) ?? new Set()
      readers.set(key, set)
      set.add(read)
      return () => void set.delete(read)
    },
    count: (name, labels) => counts.get(seriesKey(name, labels)) ?? 0,
    observations: (name, labels) => [...(observed.get(seriesKey(name, labels)) ?? [])],
    gaugeValue(name, labels) {
      const set = readers.get(seriesKey(name, labels))
      if (!set || set.size === 0) return undefined
      let sum = 0
      for (const read of set) sum += read()
      return sum
    },
    made,
    instrumentsMade: () => asked,
  }
}
