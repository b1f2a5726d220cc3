// What both bindings share. Import a binding from its own entry, so that only its peer is loaded:
// `@floodgate/metrics/prometheus` (prom-client) or `@floodgate/metrics/opentelemetry` (@opentelemetry/api).
export type { MetricsSink } from '@floodgate/core'
export {
  type BoundCounter,
  type BoundHistogram,
  METRICS,
  type MetricDefinition,
  type MetricLabels,
} from '@floodgate/core/internal'
export type { MetricsBindingOptions } from './options.js'
