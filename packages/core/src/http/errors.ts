/**
 * Stable codes of the errors the HTTP layer reports through `onError`; match on these, never on the message.
 * `docs/errors.md` explains each, with its cause and fix.
 */
export type RateLimitRequestErrorCode =
  /** The framework gave no client address; the request is refused (500), never counted under a shared key. */
  | 'ERR_FLOODGATE_NO_CLIENT_ADDRESS'
  /** The store did not answer within `storeTimeout`; `failMode` decided. */
  | 'ERR_FLOODGATE_STORE_TIMEOUT'
  /** The store threw or rejected; `failMode` decided. */
  | 'ERR_FLOODGATE_STORE_FAILED'
  /**
   * Reading the request (its route pattern) threw in the adapter or the framework; the request is still limited,
   * as one whose route is unknown. Never a store failure: `failMode` does not apply.
   */
  | 'ERR_FLOODGATE_REQUEST_READ_FAILED'
  /** One of your functions (`key`, `user`, `cost`, `skip`, `message`, `handler`, `onLimited`) threw or rejected. */
  | 'ERR_FLOODGATE_FUNCTION_FAILED'
  /** A `cost` function returned something that is not a finite number >= 0. */
  | 'ERR_FLOODGATE_INVALID_COST'
  /** A `key` or `user` function returned something that is not a key (an object, a boolean, NaN). */
  | 'ERR_FLOODGATE_INVALID_KEY_VALUE'
  /** A custom `handler` returned a response that cannot be sent; the answer is 500. */
  | 'ERR_FLOODGATE_INVALID_RESPONSE'
  /** The adapter could not write the response (a header the framework refused); the answer is 500. */
  | 'ERR_FLOODGATE_RESPONSE_FAILED'
  /** `planOf` threw, rejected, timed out or answered nonsense; the answer is 503, never unlimited. */
  | 'ERR_FLOODGATE_PLAN_LOOKUP_FAILED'
  /** `planOf` named a plan `plans` does not have; the answer is 500. */
  | 'ERR_FLOODGATE_UNKNOWN_PLAN'

/**
 * Something on one request that the limiter handled without letting it crash the server: see
 * {@link RateLimitRequestErrorCode}. Handed to `onError`; never thrown at the framework. `option` names the
 * function that failed, when one did; `cause` holds what it threw.
 */
export class RateLimitRequestError extends Error {
  override readonly name = 'RateLimitRequestError'
  readonly code: RateLimitRequestErrorCode
  readonly option: string | undefined
  constructor(
    code: RateLimitRequestErrorCode,
    message: string,
    options: { cause?: unknown; option?: string } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.option = options.option
  }
}
