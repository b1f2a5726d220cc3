import type { BoundCounter, BoundHistogram, MetricDefinition, MetricLabels } from '@floodgate/core/internal'

/** A counter's running total: adding is one addition, read when metrics are collected. */
export interface CounterCell extends BoundCounter {
  value: number
}

/** A histogram's buckets (not cumulative; the last one is above every bound), sum and count. */
export interface HistogramCell extends BoundHistogram {
  readonly bounds: readonly number[]
  readonly counts: Float64Array
  sum: number
  count: number
}

/** A gauge's readers: its value is their sum. */
export interface GaugeCell {
  readonly readers: Set<() => number>
}

/** One series: its labels (in the definition's order, frozen) and its cell. */
export interface Series<C> {
  readonly labels: MetricLabels
  readonly cell: C
}

/** The series of one metric, by label values. */
export interface Family<C> {
  readonly metric: MetricDefinition
  readonly series: Map<string, Series<C>>
}

/** `labels` checked against `metric`'s label names, in their order, frozen: bound once per instrument. */
export function boundLabels(metric: MetricDefinition, labels: MetricLabels): MetricLabels {
  const bound: Record<string, string> = {}
  for (const name of metric.labels) {
    const value = labels[name]
    if (typeof value !== 'string') throw new TypeError(`${metric.name}: no value for label ${name}`)
    bound[name] = value
  }
  return Object.freeze(bound)
}

/** The series of one label set of `family`, made by `make` the first time it is asked for. */
export function seriesOf<C>(family: Family<C>, labels: MetricLabels, make: () => C): Series<C> {
  const bound = boundLabels(family.metric, labels)
  const key = Object.values(bound).join('\u0000')
  let series = family.series.get(key)
  if (series === undefined) {
    series = { labels: bound, cell: make() }
    family.series.set(key, series)
  }
  return series
}

export function counterCell(): CounterCell {
  const cell: CounterCell = {
    value: 0,
    add(value) {
      cell.value += value
    },
  }
  return cell
}

export function histogramCell(bounds: readonly number[]): HistogramCell {
  const last = bounds.length
  const cell: HistogramCell = {
    bounds,
    counts: new Float64Array(last + 1),
    sum: 0,
    count: 0,
    record(value) {
      let i = 0
      while (i < last && value > bounds[i]!) i++
      cell.counts[i]!++
      cell.sum += value
      cell.count++
    },
  }
  return cell
}

export const gaugeCell = (): GaugeCell => ({ readers: new Set() })

/** A gauge's value: the sum of its readers (a reader that throws counts as 0). */
export function gaugeValue(cell: GaugeCell): number {
  let sum = 0
  for (const read of cell.readers) {
    try {
      const value = read()
      if (Number.isFinite(value)) sum += value
    } catch {
      // A reader that fails reports nothing.
    }
  }
  return sum
}

/** Add a reader to a gauge; the function returned takes it away. */
export function addReader(cell: GaugeCell, read: () => number): () => void {
  const reader = () => read()
  cell.readers.add(reader)
  return () => void cell.readers.delete(reader)
}
