// The OpenTelemetry binding against a real MeterProvider, exported on demand to the SDK's in-memory exporter:
// instrument names, units, descriptions and kinds as the catalog has them, counts after real decisions,
// histogram boundaries from the catalog, gauges as up-down counters, one set of instruments per meter.
import { RateLimitConfigError } from '@floodgate/core'
import { createPriorityQueue, createRateLimitHandler, METRICS } from '@floodgate/core/internal'
import { histogramProducer, openTelemetry } from '@floodgate/metrics/opentelemetry'
import { requestInfo } from '@floodgate/test-harness'
import type { Meter } from '@opentelemetry/api'
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  type MetricData,
  type MetricProducer,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics'
import { afterEach, describe, expect, it } from 'vitest'
import { timedCalls } from './timed-calls.js'

const providers: MeterProvider[] = []
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.shutdown()))
})

/** A MeterProvider whose metrics are exported to memory when `collect()` is called (never on a timer). */
function provider() {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
  const meterProvider = new MeterProvider({ readers: [reader] })
  providers.push(meterProvider)
  return {
    meter: meterProvider.getMeter('test'),
    /** The latest export's metrics, by instrument name. */
    async collect(): Promise<Map<string, MetricData>> {
      exporter.reset()
      await reader.forceFlush()
      const exported = exporter.getMetrics().at(-1)
      return new Map(
        (exported?.scopeMetrics ?? []).flatMap((s) => s.metrics).map((m) => [m.descriptor.name, m]),
      )
    },
  }
}

const point = (metric: MetricData | undefined, labels: Record<string, string>) =>
  metric?.dataPoints.find((p) => Object.entries(labels).every(([k, v]) => p.attributes[k] === v))

describe('openTelemetry({ meter })', () => {
  it('counters: cumulative monotonic sums with the catalog names, units and descriptions', async () => {
    const { meter, collect } = provider()
    const handler = createRateLimitHandler({ limit: 2, window: '1m', metrics: openTelemetry({ meter }) })
    for (let i = 0; i < 3; i++) await handler.handle(requestInfo())
    const metrics = await collect()
    const requests = metrics.get('floodgate.requests')!
    expect(requests.descriptor.unit).toBe('{request}')
    expect(requests.descriptor.description).toBe(METRICS.requests.description)
    expect(requests.dataPointType).toBe(DataPointType.SUM)
    expect(requests.dataPointType === DataPointType.SUM && requests.isMonotonic).toBe(true)
    expect(point(requests, { outcome: 'allowed' })?.value).toBe(2)
    expect(point(requests, { outcome: 'limited' })?.value).toBe(1)
    expect(point(metrics.get('floodgate.decisions'), { policy: 'ip', outcome: 'limited' })?.value).toBe(1)
    expect(point(metrics.get('floodgate.near_limit'), { policy: 'ip' })?.value).toBe(1)
    // Cumulative: a second collection adds to the first.
    await handler.handle(requestInfo())
    expect(point((await collect()).get('floodgate.requests'), { outcome: 'limited' })?.value).toBe(2)
  })

  it('histograms: the catalog boundaries, in seconds', async () => {
    const { meter, collect } = provider()
    await timedCalls(openTelemetry({ meter }), [0.2, 3])
    const duration = (await collect()).get('floodgate.store.duration')!
    expect(duration.descriptor.unit).toBe('s')
    expect(duration.dataPointType).toBe(DataPointType.HISTOGRAM)
    const p = point(duration, { store: 'redis', operation: 'consume' })!
    const value = p.value as {
      count: number
      sum: number
      buckets: { boundaries: number[]; counts: number[] }
    }
    expect(value.count).toBe(2)
    expect(value.sum).toBeCloseTo(0.0032, 9)
    expect(value.buckets.boundaries).toEqual(METRICS.storeDuration.buckets)
    expect(value.buckets.counts.slice(0, 6)).toEqual([0, 1, 0, 0, 0, 1])
  })

  it('gauges: up-down counters read at collection, gone once their reader is removed', async () => {
    const { meter, collect } = provider()
    const queue = createPriorityQueue({
      concurrency: 1,
      queues: { standard: { capacity: 5 } },
      metrics: openTelemetry({ meter }),
    })
    queue.enter(requestInfo())
    queue.enter(requestInfo())
    queue.enter(requestInfo())
    const depth = (await collect()).get('floodgate.queue.depth')!
    expect(depth.dataPointType).toBe(DataPointType.SUM)
    expect(depth.dataPointType === DataPointType.SUM && depth.isMonotonic).toBe(false)
    expect(point(depth, { queue: 'standard' })?.value).toBe(2)
    queue.close()
  })

  it('one set of instruments per meter: sinks made twice for it count once each', async () => {
    const { meter, collect } = provider()
    const a = createRateLimitHandler({ limit: 5, window: '1m', metrics: openTelemetry({ meter }) })
    const b = createRateLimitHandler({
      limit: 5,
      window: '1m',
      prefix: 'b',
      metrics: openTelemetry({ meter }),
    })
    await a.handle(requestInfo())
    await b.handle(requestInfo())
    const requests = (await collect()).get('floodgate.requests')!
    expect(point(requests, { outcome: 'allowed' })?.value).toBe(2)
    expect(requests.dataPoints.filter((p) => p.attributes.outcome === 'allowed')).toHaveLength(1)
  })

  it('bad options fail at creation, naming the option', () => {
    expect(() => openTelemetry({ meter: {} as Meter })).toThrow(RateLimitConfigError)
    expect(() => openTelemetry({ meter: {} as Meter })).toThrow(/openTelemetry\.meter/)
    expect(() => openTelemetry({ nearLimit: 0 })).toThrow(/openTelemetry\.nearLimit/)
  })
})

describe('openTelemetry({ meter, histograms: histogramProducer() })', () => {
  /** A MeterProvider whose reader also collects a producer's histograms, and a sink for it. */
  function aggregating() {
    const histograms = histogramProducer()
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
    // The producer is a MetricProducer of the SDK as it is, with no cast.
    const metricProducers: MetricProducer[] = [histograms]
    const reader = new PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: 3_600_000,
      metricProducers,
    })
    const meterProvider = new MeterProvider({ readers: [reader] })
    providers.push(meterProvider)
    const meter = meterProvider.getMeter('test')
    return {
      meter,
      histograms,
      sink: openTelemetry({ meter, histograms }),
      async collect(): Promise<MetricData[]> {
        exporter.reset()
        await reader.forceFlush()
        return exporter
          .getMetrics()
          .at(-1)!
          .scopeMetrics.flatMap((s) => s.metrics)
      },
    }
  }
  const durationOf = (metrics: MetricData[]) => {
    const found = metrics.filter((m) => m.descriptor.name === 'floodgate.store.duration')
    expect(found).toHaveLength(1) // the SDK made no histogram of its own for it
    const p = point(found[0], { store: 'redis', operation: 'consume' })!
    return {
      metric: found[0]!,
      value: p.value as { count: number; sum: number; buckets: { boundaries: number[]; counts: number[] } },
    }
  }

  it('histograms are counted by Floodgate and exported under the same name, unit, boundaries and counts', async () => {
    const { sink, collect } = aggregating()
    await timedCalls(sink, [0.2, 3])
    const { metric, value } = durationOf(await collect())
    expect(metric.descriptor.unit).toBe('s')
    expect(metric.descriptor.description).toBe(METRICS.storeDuration.description)
    expect(metric.dataPointType).toBe(DataPointType.HISTOGRAM)
    expect(metric.aggregationTemporality).toBe(AggregationTemporality.CUMULATIVE)
    expect(value.count).toBe(2)
    expect(value.sum).toBeCloseTo(0.0032, 9)
    expect(value.buckets.boundaries).toEqual(METRICS.storeDuration.buckets)
    expect(value.buckets.counts.slice(0, 6)).toEqual([0, 1, 0, 0, 0, 1])
    // Cumulative: a later collection holds the earlier observations too.
    await timedCalls(sink, [0.2])
    expect(durationOf(await collect()).value.count).toBe(3)
  })

  it('counters go through the meter as with record; one meter sends its histograms one way', async () => {
    const { meter, histograms, collect } = aggregating()
    const handler = createRateLimitHandler({
      limit: 1,
      window: '1m',
      metrics: openTelemetry({ meter, histograms }),
    })
    await handler.handle(requestInfo())
    const requests = (await collect()).find((m) => m.descriptor.name === 'floodgate.requests')
    expect(point(requests, { outcome: 'allowed' })?.value).toBe(1)
    expect(() => openTelemetry({ meter })).toThrow(RateLimitConfigError)
    expect(() => openTelemetry({ meter })).toThrow(/openTelemetry\.histograms/)
    expect(() => openTelemetry({ meter, histograms: histogramProducer() })).toThrow(
      /openTelemetry\.histograms/,
    )
    expect(() => openTelemetry({ histograms: { collect: async () => ({}) } as never })).toThrow(
      /openTelemetry\.histograms/,
    )
  })
})
