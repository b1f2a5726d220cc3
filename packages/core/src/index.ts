export { ceilMs, EPSILON, floorUnits } from './algorithms/decision.js'
export { algorithmId } from './algorithms/id.js'
export {
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
export { cachedClock } from './clocks/cached-clock.js'
export { consumeAll, mostRestrictive, mostRestrictiveIndex } from './consume-all.js'
export { type Duration, type DurationUnit, parseDuration, toMs } from './duration.js'
export { describeValue, RateLimitConfigError, RateLimitCostError, type RateLimitErrorCode } from './errors.js'
export * from './http/index.js'
export { boundKey, MAX_KEY_LENGTH } from './keys.js'
export {
  type ConsumeOptions,
  checkCost,
  createLimiter,
  type Limiter,
  type LimiterOptions,
  storeSchema,
} from './limiter.js'
export { MemoryStore, type MemoryStoreOptions } from './stores/memory.js'
export type { Algorithm, AlgorithmKind, Awaitable, Clock, ConsumeItem, Decision, Store } from './types.js'
export { parseOptions, positive, positiveInt } from './validate.js'
