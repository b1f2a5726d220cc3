// The public API: what users of Floodgate import, each name documented in README.md or docs/ (a test pins the
// list: test/public-surface.test.ts). Plumbing for Floodgate's own packages (the adapters' shared handler, the
// gates, the metrics catalog, the stores' parts) is in `@floodgate/core/internal`, not covered by semver.

// The limiter, its algorithms and its in-process store.
export {
  calendarQuota,
  concurrency,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  step,
  tokenBucket,
} from './algorithms/index.js'
export { DegradationError, type DegradationErrorCode } from './degradation/errors.js'
// The load shedder's overload signal, to tune or to share between shedders.
export { eventLoopDelaySignal } from './degradation/load-shedder/event-loop-delay.js'
export type { RequestSlowDown } from './degradation/slow-down/outcome.js'
export type { Duration } from './duration.js'
// Errors, each with a stable `code`.
export { RateLimitConfigError, RateLimitCostError, type RateLimitErrorCode } from './errors.js'
export type { FailMode } from './failure-policy.js'
export type { Answer } from './http/answer.js'
export { RateLimitRequestError, type RateLimitRequestErrorCode } from './http/errors.js'
export type { KeySpec } from './http/key-spec.js'
// The options every adapter's `rateLimit()` takes, and what a request reads back.
export type {
  BanOptions,
  PlanOptions,
  PolicyOptions,
  RateLimitOptions,
} from './http/options/types.js'
export type { Outcome, PolicyUsage, RequestRateLimit } from './http/outcome.js'
export type { OverrideEntry, Overrides } from './http/overrides.js'
export type { RequestInfo } from './http/request-info.js'
export type { Unban } from './http/unban.js'
export type { Usage, UsageReport } from './http/usage.js'
export { createLimiter, type Limiter, type LimiterOptions } from './limiter.js'
// What a custom metrics sink implements.
export type { MetricsSink } from './metrics/sink.js'
export { MemoryStore, type MemoryStoreOptions } from './stores/memory.js'
export type {
  Algorithm,
  ConsumeItem,
  Decision,
  Store,
} from './types.js'
