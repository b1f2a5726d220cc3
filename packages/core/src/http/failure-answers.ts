import { RateLimitRequestError } from './errors.js'
import { type AnsweredRequest, answeredOutcome, type Outcome, undecidedOutcome } from './outcome.js'
import type { Reporter } from './report.js'
import type { RequestInfo } from './request-info.js'
import { INTERNAL_ERROR_BODY, JSON_TYPE, NO_ADDRESS_BODY, UNAVAILABLE_BODY } from './responses.js'

const NO_STORE = { 'cache-control': 'no-store' }
const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** The answers to a request that no policy decided, each reported once. */
export interface FailureAnswers<N> {
  /** The store threw, rejected or timed out: `failMode` decides (open: proceed; closed: 503). */
  storeFailed(error: unknown, info: RequestInfo<N>): Outcome
  /** The client address is unknown: 500, never a shared key (in dry run, proceed). */
  noAddress(info: RequestInfo<N>): Outcome
  /** A refusal that cannot be sent as configured, or a response the adapter could not write: 500. */
  internalError(error: RateLimitRequestError, info: RequestInfo<N>, limited: boolean): AnsweredRequest
  /** The adapter could not write an outcome. */
  writeFailed(error: unknown, info: RequestInfo<N>): AnsweredRequest
}

/** Compile the failure answers of one limiter. */
export function compileFailureAnswers<N>(parts: {
  closed: boolean
  dryRun: boolean
  report: Reporter<N>
}): FailureAnswers<N> {
  const { closed, dryRun, report } = parts
  const internalError: FailureAnswers<N>['internalError'] = (error, info, limited) => {
    report(error, info)
    return answeredOutcome({
      status: 500,
      headers: { ...NO_STORE },
      body: INTERNAL_ERROR_BODY,
      contentType: JSON_TYPE,
      limited,
      error,
    })
  }
  return {
    storeFailed(error, info) {
      const reason =
        error instanceof RateLimitRequestError
          ? error
          : new RateLimitRequestError('ERR_FLOODGATE_STORE_FAILED', `The store failed: ${message(error)}`, {
              cause: error,
            })
      report(reason, info)
      if (!closed || dryRun) return undecidedOutcome(reason)
      return answeredOutcome({
        status: 503,
        headers: { 'retry-after': '1', ...NO_STORE },
        body: UNAVAILABLE_BODY,
        contentType: JSON_TYPE,
        limited: false,
        error: reason,
      })
    },
    noAddress(info) {
      const error = new RateLimitRequestError(
        'ERR_FLOODGATE_NO_CLIENT_ADDRESS',
        `The client address of ${info.method} ${info.path} is unknown (got ${JSON.stringify(info.ip)}); the request is refused rather than counted under a shared key. Check the framework's trust-proxy setting.`,
      )
      report(error, info)
      if (dryRun) return undecidedOutcome(error)
      return answeredOutcome({
        status: 500,
        headers: { ...NO_STORE },
        body: NO_ADDRESS_BODY,
        contentType: JSON_TYPE,
        limited: false,
        error,
      })
    },
    internalError,
    writeFailed(error, info) {
      const reason = new RateLimitRequestError(
        'ERR_FLOODGATE_RESPONSE_FAILED',
        `The response to ${info.method} ${info.path} could not be written: ${message(error)}. The answer was 500.`,
        { cause: error },
      )
      return internalError(reason, info, false)
    },
  }
}
