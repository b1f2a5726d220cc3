import type { FunctionFailure } from '../http/app-functions.js'

/**
 * Stable codes of what the degradation middlewares (`priorityQueue`, `loadShedder`, `slowDown`) report through `onError`;
 * `docs/errors.md` explains each.
 */
export type DegradationErrorCode =
  /** Your `priority` or `delay` function threw or rejected: the lowest priority; for `slowDown`, no delay. */
  | 'ERR_FLOODGATE_FUNCTION_FAILED'
  /** Your `priority` function returned a name that is not one of the queues or classes: lowest priority. */
  | 'ERR_FLOODGATE_UNKNOWN_PRIORITY'
  /** Your `delay` function (`slowDown`) returned something that is not a number of ms >= 0: no delay. */
  | 'ERR_FLOODGATE_INVALID_DELAY'

/** Something on one request that a degradation middleware handled without failing it. Never thrown. */
export class DegradationError extends Error {
  override readonly name = 'DegradationError'
  readonly code: DegradationErrorCode
  readonly option: string
  constructor(code: DegradationErrorCode, message: string, options: { cause?: unknown; option: string }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.option = options.option
  }
}

/** What is reported when the app's `option` function threw or rejected (`failure`, as `callAppFunction` gives it). */
export const functionFailed = (option: string, failure: FunctionFailure): DegradationError =>
  new DegradationError('ERR_FLOODGATE_FUNCTION_FAILED', failure.error.message, {
    cause: failure.error.cause,
    option,
  })
