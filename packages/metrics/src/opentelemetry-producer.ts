import type { MetricDefinition, MetricLabels } from '@floodgate/core/internal'
import type { Attributes, HrTime } from '@opentelemetry/api'
import { ValueType } from '@opentelemetry/api'
import { type Family, type HistogramCell, histogramCell, seriesOf } from './cells.js'

/** `DataPointType.HISTOGRAM` and `AggregationTemporality.CUMULATIVE` of `@opentelemetry/sdk-metrics`. */
const HISTOGRAM_POINT = 0
const CUMULATIVE = 1

/** One aggregated histogram of a {@link HistogramProducer}, in the SDK's `MetricData` form. */
export interface ProducedHistogram {
  readonly descriptor: { name: string; description: string; unit: string; valueType: ValueType }
  readonly aggregationTemporality: typeof CUMULATIVE
  readonly dataPointType: typeof HISTOGRAM_POINT
  readonly dataPoints: {
    startTime: HrTime
    endTime: HrTime
    attributes: Attributes
    value: { buckets: { boundaries: number[]; counts: number[] }; sum: number; count: number }
  }[]
}

/**
 * A `MetricProducer` of `@opentelemetry/sdk-metrics` (its structure: this package does not load the SDK) that
 * hands Floodgate's own histograms to a MetricReader when it collects ({@link histogramProducer}). Reported
 * cumulative, whatever temporality the reader asks for.
 */
export interface HistogramProducer {
  collect(options?: { timeoutMillis?: number }): Promise<{
    resourceMetrics: {
      // The reader keeps the SDK's own resource and takes only the scope's metrics from a producer.
      resource: any
      scopeMetrics: { scope: { name: string }; metrics: ProducedHistogram[] }[]
    }
    errors: unknown[]
  }>
}

const hrTime = (ms: number): HrTime => [Math.floor(ms / 1000), Math.round((ms % 1000) * 1e6)]

/** The histograms a producer hands over: each counted by Floodgate, one bucket increment an observation. */
interface Aggregator {
  histogram(metric: MetricDefinition, labels: MetricLabels): HistogramCell
}
const aggregators = new WeakMap<object, Aggregator>()

/** The histograms behind a producer made by {@link histogramProducer}, or undefined for anything else. */
export const aggregatorOf = (producer: unknown): Aggregator | undefined =>
  typeof producer === 'object' && producer !== null ? aggregators.get(producer) : undefined

/**
 * A producer of Floodgate's histograms for an OpenTelemetry MetricReader: pass it in the reader's
 * `metricProducers` and as `openTelemetry({ histograms })`. Each observation is then one bucket increment (a
 * few ns; the SDK's `Histogram.record` hashes the attributes on every call, about 1 µs), and the reader gets
 * the histograms, cumulative, when it collects. Made before the reader, as the reader takes its producers
 * when it is made.
 *
 * @example
 * const histograms = histogramProducer()
 * const reader = new PeriodicExportingMetricReader({ exporter, metricProducers: [histograms] })
 * const meterProvider = new MeterProvider({ readers: [reader] })
 * const metrics = openTelemetry({ meter: meterProvider.getMeter('api'), histograms })
 */
export function histogramProducer(): HistogramProducer {
  const families = new Map<string, Family<HistogramCell>>()
  const startedAt = new Map<HistogramCell, HrTime>()
  const producer: HistogramProducer = {
    async collect() {
      const endTime = hrTime(Date.now())
      const metrics = [...families.values()].map(
        ({ metric, series }): ProducedHistogram => ({
          descriptor: {
            name: metric.name,
            description: metric.description,
            unit: metric.unit,
            valueType: ValueType.DOUBLE,
          },
          aggregationTemporality: CUMULATIVE,
          dataPointType: HISTOGRAM_POINT,
          dataPoints: [...series.values()].map(({ labels, cell }) => ({
            startTime: startedAt.get(cell)!,
            endTime,
            attributes: { ...labels },
            value: {
              buckets: { boundaries: [...cell.bounds], counts: [...cell.counts] },
              sum: cell.sum,
              count: cell.count,
            },
          })),
        }),
      )
      return {
        resourceMetrics: {
          resource: undefined,
          scopeMetrics: [{ scope: { name: '@floodgate/metrics' }, metrics }],
        },
        errors: [],
      }
    },
  }
  aggregators.set(producer, {
    histogram(metric, labels) {
      let family = families.get(metric.name)
      if (family === undefined) {
        family = { metric, series: new Map() }
        families.set(metric.name, family)
      }
      return seriesOf(family, labels, () => {
        const cell = histogramCell(metric.buckets ?? [])
        startedAt.set(cell, hrTime(Date.now()))
        return cell
      }).cell
    },
  })
  return producer
}
