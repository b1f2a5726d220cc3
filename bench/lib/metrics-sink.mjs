/**
 * A Floodgate metrics sink as an app would make one, for the suites that measure metrics on:
 * `prometheus({ register })` on a registry of its own, or `openTelemetry({ meter })` on an SDK MeterProvider
 * whose reader exports to memory once an hour (so collection never runs during a measurement), its histograms
 * through the SDK's `Histogram.record` (`opentelemetry`) or counted by Floodgate and handed to the reader by a
 * `histogramProducer()` (`opentelemetry-producer`).
 */
export async function metricsSink(kind) {
  if (kind === 'prometheus') {
    const { Registry } = await import('prom-client')
    const { prometheus } = await import('@floodgate/metrics/prometheus')
    return prometheus({ register: new Registry() })
  }
  const { histogramProducer, openTelemetry } = await import('@floodgate/metrics/opentelemetry')
  if (kind === 'opentelemetry') return openTelemetry({ meter: await sdkMeter() })
  if (kind !== 'opentelemetry-producer') throw new Error(`unknown metrics sink ${kind}`)
  const histograms = histogramProducer()
  return openTelemetry({ meter: await sdkMeter([histograms]), histograms })
}

/** An OpenTelemetry SDK meter, exported to memory once an hour; its reader also collects `metricProducers`. */
export async function sdkMeter(metricProducers = []) {
  const { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } =
    await import('@opentelemetry/sdk-metrics')
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({
    exporter,
    exportIntervalMillis: 3_600_000,
    metricProducers,
  })
  return new MeterProvider({ readers: [reader] }).getMeter('bench')
}
