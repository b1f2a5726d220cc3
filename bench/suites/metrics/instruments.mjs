/**
 * The cost of one call on each kind of instrument, in ns: what Floodgate's sinks do per request (a counter's
 * `add`, a histogram's `record`), next to what prom-client's and the OpenTelemetry SDK's own instruments do
 * per call (they hash the labels each time), which is why the sinks count into plain numbers instead.
 */
import { METRICS } from '@floodgate/core/internal'
import { sdkMeter } from '../../lib/metrics-sink.mjs'

function nsPerCall(call, n) {
  for (let i = 0; i < Math.min(n, 200_000); i++) call(i)
  const start = process.hrtime.bigint()
  for (let i = 0; i < n; i++) call(i)
  return Number(process.hrtime.bigint() - start) / n
}

/** ns per call of each instrument, `n` calls each (values cycling over 100 durations, 0 to 10 ms). */
export async function instrumentCosts(n) {
  const { Counter, Histogram, Registry } = await import('prom-client')
  const { prometheus } = await import('@floodgate/metrics/prometheus')
  const { openTelemetry } = await import('@floodgate/metrics/opentelemetry')
  const decision = { policy: 'ip', outcome: 'allowed' }
  const call = { store: 'redis', operation: 'consume' }
  const seconds = (i) => (i % 100) / 10_000
  const prom = prometheus({ register: new Registry() })
  const otelMeter = await sdkMeter()
  const otel = openTelemetry({ meter: otelMeter })
  const register = new Registry()
  const promCounter = new Counter({
    name: 'c_total',
    help: 'c',
    labelNames: ['policy', 'outcome'],
    registers: [register],
  })
  const promHistogram = new Histogram({
    name: 'h_seconds',
    help: 'h',
    labelNames: ['store', 'operation'],
    buckets: [...METRICS.storeDuration.buckets],
    registers: [register],
  })
  const sdkCounter = otelMeter.createCounter('bench.counter')
  const sdkHistogram = otelMeter.createHistogram('bench.histogram', {
    advice: { explicitBucketBoundaries: [...METRICS.storeDuration.buckets] },
  })
  const rows = {
    'prometheus() counter add': (() => {
      const c = prom.counter(METRICS.decisions, decision)
      return () => c.add(1)
    })(),
    'prometheus() histogram record': (() => {
      const h = prom.histogram(METRICS.storeDuration, call)
      return (i) => h.record(seconds(i))
    })(),
    'openTelemetry() counter add': (() => {
      const c = otel.counter(METRICS.decisions, decision)
      return () => c.add(1)
    })(),
    'openTelemetry() histogram record (SDK Histogram.record)': (() => {
      const h = otel.histogram(METRICS.storeDuration, call)
      return (i) => h.record(seconds(i))
    })(),
    "prom-client's own Counter, labels(...).inc()": (() => {
      const child = promCounter.labels(decision)
      return () => child.inc()
    })(),
    "prom-client's own Histogram, labels(...).observe()": (() => {
      const child = promHistogram.labels(call)
      return (i) => child.observe(seconds(i))
    })(),
    "OpenTelemetry SDK's own Counter.add(1, attributes)": () => sdkCounter.add(1, decision),
    "OpenTelemetry SDK's own Histogram.record(v, attributes)": (i) => sdkHistogram.record(seconds(i), call),
  }
  return Object.fromEntries(Object.entries(rows).map(([name, fn]) => [name, nsPerCall(fn, n)]))
}
