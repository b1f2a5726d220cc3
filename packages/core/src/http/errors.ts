/** Stable codes of the errors the HTTP layer reports through `onError`; match on these, never on the message. */
export type RateLimitRequestErrorCode =
  | 'ERR_FLOODGATE_NO_CLIENT_ADDRESS'
  | 'ERR_FLOODGATE_STORE_TIMEOUT'
  | 'ERR_FLOODGATE_STORE_FAILED'

/**
 * A request the limiter could not decide: its client address is unknown (it is then never given a shared
 * key), or the store did not answer in time. Handed to `onError`; never thrown at the framework.
 */
export class RateLimitRequestError extends Error {
  override readonly name = 'RateLimitRequestError'
  readonly code: RateLimitRequestErrorCode
  constructor(code: RateLimitRequestErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}
