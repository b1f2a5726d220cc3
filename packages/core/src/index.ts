// The public API: what users of Floodgate import. Plumbing for Floodgate's own packages (stores, adapters)
// is in `@floodgate/core/internal`.
export {
  type CalendarPeriod,
  type CalendarQuotaOptions,
  calendarQuota,
  fixedWindow,
  type GcraOptions,
  gcra,
  type LeakyBucketOptions,
  leakyBucket,
  type StepResult,
  slidingWindowCounter,
  slidingWindowLog,
  step,
  type TokenBucketOptions,
  tokenBucket,
  type WindowOptions,
} from './algorithms/index.js'
export { consumeAll, mostRestrictive } from './consume-all.js'
export { COST_PRECISION } from './cost.js'
export * from './degradation/index.js'
export type { Duration, DurationUnit } from './duration.js'
export { RateLimitConfigError, RateLimitCostError, type RateLimitErrorCode } from './errors.js'
export type { FailMode, FailSource, SourcedDecision } from './failure-policy.js'
export type { Answer, HttpAnswer, PassAnswer } from './http/answer.js'
export { RateLimitRequestError, type RateLimitRequestErrorCode } from './http/errors.js'
export { createRateLimitHandler, type RateLimitHandler } from './http/handler.js'
export type { HeaderMode, HeadersOption } from './http/headers.js'
export type { KeyFunction, KeyPart, KeySpec, KeyValue } from './http/key-spec.js'
export type {
  CostOption,
  LimitedResponse,
  PlanOptions,
  PolicyOptions,
  RateLimitOptions,
  RequestFunction,
  RouteTierOptions,
  SettleFunction,
  WarningOptions,
} from './http/options/types.js'
export type { Outcome, PolicyUsage, RequestRateLimit } from './http/outcome.js'
export type { ProxyTrust, RequestInfo } from './http/request-info.js'
export type { ResponseFormat } from './http/respond.js'
export type { Usage, UsageReport } from './http/usage.js'
export type { WarningName } from './http/warnings.js'
export { type ConsumeOptions, createLimiter, type Limiter, type LimiterOptions } from './limiter.js'
export {
  type BoundCounter,
  type BoundHistogram,
  DECISION_OUTCOMES,
  type DecisionOutcome,
  METRICS,
  type MetricDefinition,
  type MetricId,
  type MetricKind,
  type MetricLabels,
  type MetricsSink,
  REQUEST_OUTCOMES,
  type RequestOutcome,
  STORE_ERROR_KINDS,
  type StoreErrorKind,
  type StoreOperation,
} from './metrics/index.js'
export { MemoryStore, type MemoryStoreOptions } from './stores/memory.js'
export type { Algorithm, AlgorithmKind, Awaitable, Clock, ConsumeItem, Decision, Store } from './types.js'
