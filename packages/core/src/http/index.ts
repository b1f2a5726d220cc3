export { type AllowList, compileAllowList, parseRange } from './allow-list.js'
export { RateLimitRequestError, type RateLimitRequestErrorCode } from './errors.js'
export { createRateLimitHandler, type Outcome, type RateLimitHandler } from './handler.js'
export {
  compileHeaders,
  type HeaderMode,
  type HeadersOption,
  type HeaderWriter,
  headerModes,
} from './headers.js'
export { ipKey, type ParsedIp, parseIp } from './ip.js'
export {
  compileKey,
  escapeKeyPart,
  type KeyFunction,
  type KeyPart,
  type KeySpec,
  type KeyValue,
} from './keys.js'
export {
  type LimitedResponse,
  mergeRateLimitOptions,
  type PolicyOptions,
  type RateLimitOptions,
  type RequestFunction,
  rateLimitOptionsSchema,
} from './options.js'
export type { RequestInfo } from './request-info.js'
export { type ResponseFormat, retryMessage } from './responses.js'
