/**
 * A Floodgate metrics sink as an app would make one, for the suites that measure metrics on:
 * `prometheus({ register })` on a registry of its own, or `openTelemetry({ meter })` on an SDK MeterProvider
 * whose reader exports to memory once an hour (so collection never runs during a measurement).
 */
export async function metricsSink(kind) {
  if (kind === 'prometheus') {
    const { Registry } = await import('prom-client')
    const { prometheus } = await import('@floodgate/metrics/prometheus')
    return prometheus({ register: new Registry() })
  }
  if (kind !== 'opentelemetry') throw new Error(`unknown metrics sink ${kind}`)
  const { openTelemetry } = await import('@floodgate/metrics/opentelemetry')
  return openTelemetry({ meter: await sdkMeter() })
}

/** An OpenTelemetry SDK meter, exported to memory once an hour. */
export async function sdkMeter() {
  const { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } =
    await import('@opentelemetry/sdk-metrics')
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE)
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 })
  return new MeterProvider({ readers: [reader] }).getMeter('bench')
}
