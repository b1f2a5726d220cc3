// Plumbing shared by Floodgate's own packages (the stores, the adapters, the metrics bindings, the test kit):
// `@floodgate/core/internal`. Not covered by semver: users import `@floodgate/core`. Each name here is used by
// another package of the repository (a test pins it: test/public-surface.test.ts).

export { boundDelay } from './algorithms/bounded-delay.js'
export { periodOf } from './algorithms/calendar.js'
export { CONCURRENCY_RETRY_MS } from './algorithms/concurrency.js'
export { EPSILON, NEVER } from './algorithms/decide.js'
export { cachedClock } from './clocks/cached-clock.js'
export { consumeAll, consumeInGroups } from './consume-all.js'
export { isCost, normalizeCost } from './cost.js'
export {
  createLoadShedder,
  createPriorityQueue,
  type Gate,
  type GateOutcome,
  type LoadShedder,
  type LoadShedderOptions,
  type PriorityQueue,
  type PriorityQueueOptions,
} from './degradation/index.js'
export { createSlowDown, type SlowDown } from './degradation/slow-down/create.js'
export type { SlowDownOptions } from './degradation/slow-down/options.js'
export type { SlowDownOutcome } from './degradation/slow-down/outcome.js'
export type { Timers } from './degradation/timers.js'
export { parseDuration, toMs } from './duration.js'
export { DEFAULT_STORE_TIMEOUT_MS, type FailSource, refuseMovedOptions } from './failure-policy.js'
export { callHook, guardedCall, HookFailure, hookFailed } from './guarded-call.js'
export { type HttpAnswer, retryAfterSeconds, seconds } from './http/answer.js'
export { createRateLimitHandler, type RateLimitHandler, withControls } from './http/handler.js'
export type { LimiterControls } from './http/handler-types.js'
export { compileHeaders, type HeaderMode } from './http/headers.js'
export { ipKey, parseIp } from './http/ip.js'
export { keyValueText } from './http/key-spec.js'
export { enterGate, gateMiddlewares, setHeaders, writeAnswer, writeOutcome } from './http/node-response.js'
export { RATE_LIMIT_DEFAULTS } from './http/options/defaults.js'
export { mergeRateLimitOptions, routeRateLimitOptions } from './http/options/merge.js'
export { rateLimitOptionsSchema } from './http/options/schema.js'
export type { ProxyTrust } from './http/request-info.js'
export { forgetRaisedWarnings } from './http/warnings.js'
export {
  type BoundCounter,
  type BoundHistogram,
  createStoreMetrics,
  METRICS,
  type MetricDefinition,
  type MetricLabels,
  metricsSinkSchema,
  nearLimitSchema,
  requestOutcome,
  type StoreMetrics,
  type StoreOperation,
} from './metrics/index.js'
export { MAX_KEPT_STORE_KEY_LENGTH, ownCopy } from './store-keys/own-copy.js'
export { sha256Text } from './store-keys/sha256.js'
export { encodeKeyPart, HASHED_PART_MARK, partitionOf, storeKey } from './store-keys/store-key.js'
export { bannedDecision } from './stores/bans.js'
export { PARAM_SLOTS, STEP_PARAMS, stepParams } from './stores/params.js'
export { failureReporter, readSettled } from './stores/resilience/call-outcome.js'
export { Circuit } from './stores/resilience/circuit.js'
export { CallFailure, Deadlines, type Pending, type Settled, settle } from './stores/resilience/deadlines.js'
export { type BatchAnswer, SameTickBatches } from './stores/same-tick-batches.js'
export { SettingsPoller } from './stores/settings-poller.js'
export type {
  AlgorithmKind,
  Awaitable,
  BanRule,
  Clock,
  SettingsWatcher,
  StoreSettings,
} from './types.js'
export { algorithmSchema, duration, fn, parseOptions, positive, positiveInt } from './validate.js'
