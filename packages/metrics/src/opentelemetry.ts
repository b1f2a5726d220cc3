import { type MetricsSink, RateLimitConfigError } from '@floodgate/core'
import { type MetricDefinition, parseOptions } from '@floodgate/core/internal'
import {
  type Histogram,
  type Meter,
  metrics,
  type Observable,
  type ObservableResult,
} from '@opentelemetry/api'
import * as z from 'zod'
import {
  addReader,
  boundLabels,
  type CounterCell,
  counterCell,
  type Family,
  type GaugeCell,
  gaugeCell,
  gaugeValue,
  seriesOf,
} from './cells.js'
import { aggregatorOf, type HistogramProducer } from './opentelemetry-producer.js'
import { bindingShape, type MetricsBindingOptions } from './options.js'

export {
  type HistogramProducer,
  histogramProducer,
  type ProducedHistogram,
} from './opentelemetry-producer.js'

/** The options of {@link openTelemetry}. */
export interface OpenTelemetryOptions extends MetricsBindingOptions {
  /**
   * The meter the instruments are made with (from your `MeterProvider`, with its readers and exporters).
   * @default metrics.getMeter('@floodgate/metrics') (the global MeterProvider's)
   * @example meterProvider.getMeter('api')
   */
  meter?: Meter
  /**
   * How histograms (store call durations, queue waits) reach OpenTelemetry. `'record'`: every observation goes
   * through the SDK's `Histogram.record`, and the SDK's views, exemplars and temporality apply to them; the
   * SDK hashes the attributes on every call (about 1 µs, once per call of a remote store). A
   * `histogramProducer()`: Floodgate counts them in buckets itself (a few ns an observation) and the producer,
   * which you also give your MetricReader in its `metricProducers`, hands them over when the reader collects;
   * they are reported cumulative. Counters and gauges are the same either way.
   * @default 'record'
   * @example histogramProducer()
   */
  histograms?: 'record' | HistogramProducer
}

const METER_EXPECTED = 'an OpenTelemetry Meter (meterProvider.getMeter(name))'
const schema = z.strictObject({
  meter: z
    .custom<Meter>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        ['createHistogram', 'createObservableCounter', 'createObservableUpDownCounter'].every(
          (m) => typeof (v as Record<string, unknown>)[m] === 'function',
        ),
      { error: METER_EXPECTED },
    )
    .optional(),
  histograms: z
    .custom<'record' | HistogramProducer>((v) => v === 'record' || aggregatorOf(v) !== undefined, {
      error: "'record' or a producer made by histogramProducer()",
    })
    .optional(),
  ...bindingShape,
})

/**
 * What one meter holds: the series of its observable instruments, and its histograms: SDK instruments, or
 * counted here (`'aggregate'`: one mode per meter, so that no histogram is reported twice).
 */
interface MeterState {
  readonly families: Map<string, Family<any>>
  readonly histograms: Map<string, Histogram>
  readonly histogramsTo: 'record' | HistogramProducer
}
const byMeter = new WeakMap<Meter, MeterState>()

const instrumentOptions = (metric: MetricDefinition) => ({
  description: metric.description,
  unit: metric.unit,
})

/**
 * Counters and gauges are observable instruments: a request adds to a plain number, and the meter reads the
 * totals when it collects (an ObservableCounter reports a cumulative sum, as a Counter would). Gauges are
 * ObservableUpDownCounters: queue depths and open circuits add up across label sets.
 */
function observe(meter: Meter, family: Family<CounterCell | GaugeCell>): void {
  const { metric } = family
  const instrument: Observable =
    metric.kind === 'counter'
      ? meter.createObservableCounter(metric.name, instrumentOptions(metric))
      : meter.createObservableUpDownCounter(metric.name, instrumentOptions(metric))
  instrument.addCallback((result: ObservableResult) => {
    for (const { labels, cell } of family.series.values()) {
      if ('value' in cell) result.observe(cell.value, labels)
      else if (cell.readers.size > 0) result.observe(gaugeValue(cell), labels)
    }
  })
}

/**
 * A metrics sink for OpenTelemetry: `rateLimit({ metrics: openTelemetry({ meter }) })`. Pass the same sink (or
 * another one for the same meter) to stores, queues and shedders. Instruments are made when Floodgate first
 * reports a metric, named and united by OpenTelemetry's conventions (`floodgate.decisions` in `{decision}`,
 * `floodgate.store.duration` in `s`: see `docs/metrics.md`); a Prometheus exporter shows them under the same
 * names as `prometheus()`. Counters and gauges are read when the meter collects; histograms are recorded
 * as they happen (`Histogram.record`), or counted here and handed over when the reader collects (`histograms`:
 * a `histogramProducer()`, also in the reader's `metricProducers`).
 *
 * @example
 * const meter = meterProvider.getMeter('api')
 * app.use(rateLimit({ limit: 100, window: '1m', metrics: openTelemetry({ meter }) }))
 * @example
 * // Histograms counted by Floodgate, a few ns an observation instead of the SDK's record:
 * const histograms = histogramProducer()
 * const reader = new PeriodicExportingMetricReader({ exporter, metricProducers: [histograms] })
 * const meterProvider = new MeterProvider({ readers: [reader] })
 * const metrics = openTelemetry({ meter: meterProvider.getMeter('api'), histograms })
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): MetricsSink {
  const o = parseOptions(schema, options, 'openTelemetry')
  const meter = o.meter ?? metrics.getMeter('@floodgate/metrics')
  const histogramsTo = o.histograms ?? 'record'
  let state = byMeter.get(meter)
  if (state === undefined) {
    state = { families: new Map(), histograms: new Map(), histogramsTo }
    byMeter.set(meter, state)
  } else if (state.histogramsTo !== histogramsTo) {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      'openTelemetry.histograms',
      histogramsTo,
      `${state.histogramsTo === 'record' ? "'record'" : 'the producer'} the sink already made for this meter was ` +
        "given: one meter's histograms go one way, so that none is reported twice",
    )
  }
  const { families, histograms } = state
  const aggregator = aggregatorOf(histogramsTo)
  const familyOf = <C extends CounterCell | GaugeCell>(metric: MetricDefinition): Family<C> => {
    let family = families.get(metric.name)
    if (family === undefined) {
      family = { metric, series: new Map() }
      families.set(metric.name, family)
      observe(meter, family)
    }
    return family
  }
  const histogramOf = (metric: MetricDefinition): Histogram => {
    let histogram = histograms.get(metric.name)
    if (histogram === undefined) {
      histogram = meter.createHistogram(metric.name, {
        ...instrumentOptions(metric),
        advice: { explicitBucketBoundaries: [...(metric.buckets ?? [])] },
      })
      histograms.set(metric.name, histogram)
    }
    return histogram
  }
  return {
    nearLimit: o.nearLimit,
    counter: (metric, labels) => seriesOf(familyOf<CounterCell>(metric), labels, counterCell).cell,
    gauge: (metric, labels, read) =>
      addReader(seriesOf(familyOf<GaugeCell>(metric), labels, gaugeCell).cell, read),
    histogram(metric, labels) {
      if (aggregator) return aggregator.histogram(metric, labels)
      const histogram = histogramOf(metric)
      // The attributes are bound once (frozen), never built per observation.
      const attributes = boundLabels(metric, labels)
      return { record: (value) => histogram.record(value, attributes) }
    },
  }
}
