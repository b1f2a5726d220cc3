// Plumbing shared by Floodgate's own packages (the stores, the adapters, the test kit): `@floodgate/core/internal`.
// Not covered by semver: users import `@floodgate/core`.

export { boundDelay, boundDelays, boundsDelay } from './algorithms/bounded-delay.js'
export { DAY_MS, PERIOD_CODES, periodOf } from './algorithms/calendar.js'
export { ceilMs, EPSILON, floorUnits, NEVER } from './algorithms/decide.js'
export { algorithmId } from './algorithms/id.js'
export { cachedClock } from './clocks/cached-clock.js'
export { consumeInGroups, mostRestrictiveIndex } from './consume-all.js'
export { isCost, normalizeCost } from './cost.js'
export { parseDuration, toMs } from './duration.js'
export { describeValue } from './errors.js'
export {
  DEFAULT_STORE_TIMEOUT_MS,
  refuseMovedOptions,
} from './failure-policy.js'
export { callHook, guardedCall, HookFailure, hookFailed } from './guarded-call.js'
export { type AllowList, compileAllowList, parseRange } from './http/allow-list.js'
export { retryAfterSeconds, seconds } from './http/answer.js'
export { compileHeaders, type HeaderWriter, headerModes, resetMsOf } from './http/headers.js'
export { ipKey, type ParsedIp, parseIp } from './http/ip.js'
export { keyValueText, routeText } from './http/key-spec.js'
export {
  enterGate,
  gateMiddlewares,
  setHeaders,
  writeAnswer,
  writeOutcome,
} from './http/node-response.js'
export { RATE_LIMIT_DEFAULTS } from './http/options/defaults.js'
export { mergeRateLimitOptions, routeRateLimitOptions } from './http/options/merge.js'
export { defaultName, type ParsedRateLimitOptions, rateLimitOptionsSchema } from './http/options/schema.js'
export { retryMessage } from './http/respond.js'
export {
  compileWarnings,
  ERRORS_DOC,
  forgetRaisedWarnings,
  WARNINGS,
  type WarningCode,
  warnOnce,
} from './http/warnings.js'
export {
  compileLimiterMetrics,
  createQueueMetrics,
  createShedMetrics,
  createStoreMetrics,
  DEFAULT_NEAR_LIMIT,
  errorKind,
  type FailureKind,
  metricsSinkSchema,
  nearLimitSchema,
  type OutcomeRecorder,
  type QueueMetrics,
  requestOutcome,
  type ShedCause,
  type ShedMetrics,
  type StoreMetrics,
} from './metrics/index.js'
export { cacheKeyOf, MAX_KEPT_KEY_LENGTH, MAX_KEPT_STORE_KEY_LENGTH, ownCopy } from './store-keys/own-copy.js'
export { sha256Text } from './store-keys/sha256.js'
export {
  boundKeyPart,
  encodeKeyPart,
  HASHED_PART_MARK,
  MAX_KEY_PART_LENGTH,
  partitionOf,
  storeKey,
} from './store-keys/store-key.js'
export { anyBan, BAN_STATE_SIZE, bannedDecision, bannedFor, banTtl, countRefusal } from './stores/bans.js'
export { PARAM_SLOTS, STEP_PARAMS, stepParams } from './stores/params.js'
export {
  type FailureReportParts,
  failureError,
  failureReporter,
  readSettled,
} from './stores/resilience/call-outcome.js'
export { Circuit, type StatusSource } from './stores/resilience/circuit.js'
export { CallFailure, Deadlines, type Pending, type Settled, settle } from './stores/resilience/deadlines.js'
export {
  algorithmSchema,
  duration,
  fn,
  parseOptions,
  positive,
  positiveInt,
  storeSchema,
} from './validate.js'
