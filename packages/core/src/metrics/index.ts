export {
  DECISION_OUTCOMES,
  type DecisionOutcome,
  METRICS,
  type MetricId,
  REQUEST_OUTCOMES,
  type RequestOutcome,
  STORE_ERROR_KINDS,
  type StoreErrorKind,
  type StoreOperation,
} from './catalog.js'
export {
  createQueueMetrics,
  createShedMetrics,
  type QueueMetrics,
  type ShedCause,
  type ShedMetrics,
} from './gate-metrics.js'
export {
  compileLimiterMetrics,
  DEFAULT_NEAR_LIMIT,
  type OutcomeRecorder,
  requestOutcome,
} from './limiter-metrics.js'
export { metricsSinkSchema, nearLimitSchema } from './schema.js'
export type {
  BoundCounter,
  BoundHistogram,
  MetricDefinition,
  MetricKind,
  MetricLabels,
  MetricsSink,
} from './sink.js'
export { createStoreMetrics, errorKind, type FailureKind, type StoreMetrics } from './store-metrics.js'
