export { type BackoffInput, backoffCeiling, backoffDelay, type Jitter, retryDelay } from './backoff.js'
export { type RetryBudget, type RetryBudgetOptions, retryBudget } from './budget.js'
export type { Duration, DurationUnit } from './duration.js'
export type { GiveUpReason } from './engine.js'
export { ClientConfigError, type ClientConfigErrorCode } from './errors.js'
export { createFetch, type FetchClientOptions, type FetchFunction } from './fetch.js'
export {
  type HeaderMode,
  type HeaderSource,
  type PolicyInfo,
  parseDraft6,
  parseDraft7,
  parseDraft8,
  parseHttpDate,
  parseLegacy,
  parseRetryAfter,
  type RateLimitInfo,
  readRateLimit,
} from './headers/index.js'
export { type ClientOptions, IDEMPOTENT_METHODS, type RetryEvent } from './options.js'
export { restAfter } from './pacer.js'
export type { Sleep } from './sleep.js'
