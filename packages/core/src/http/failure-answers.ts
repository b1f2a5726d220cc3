import { CLOSED_RETRY_AFTER_MS, type FailurePolicy } from '../failure-policy.js'
import type { Store } from '../types.js'
import { RateLimitRequestError } from './errors.js'
import { type AnsweredRequest, answeredOutcome, type Outcome, undecidedOutcome } from './outcome.js'
import type { Reporter } from './report.js'
import type { RequestInfo } from './request-info.js'
import { INTERNAL_ERROR_BODY, JSON_TYPE, NO_ADDRESS_BODY, UNAVAILABLE_BODY } from './responses.js'

const NO_STORE = { 'cache-control': 'no-store' }
const CLOSED_RETRY_AFTER = String(Math.ceil(CLOSED_RETRY_AFTER_MS / 1000))
const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** The answers to a request that no policy decided, each reported once. */
export interface FailureAnswers<N> {
  /** The store `failMode: { fallback }` decides on when the limiter's store cannot answer. */
  readonly fallback: Store | undefined
  /**
   * The store threw, rejected or timed out and no fallback store decides (or it failed too): `failMode` decides
   * (open, and a failing fallback: proceed; closed: 503 with `Retry-After`).
   */
  storeFailed(error: unknown, info: RequestInfo<N>): Outcome
  /** The store could not answer and the fallback store decides: the failure is reported and counted. */
  fellBack(error: unknown, info: RequestInfo<N>): void
  /** The client address is unknown: 500, never a shared key (in dry run, proceed). */
  noAddress(info: RequestInfo<N>): Outcome
  /** A refusal that cannot be sent as configured, or a response the adapter could not write: 500. */
  internalError(error: RateLimitRequestError, info: RequestInfo<N>, limited: boolean): AnsweredRequest
  /** The adapter could not write an outcome. */
  writeFailed(error: unknown, info: RequestInfo<N>): AnsweredRequest
}

/** Compile the failure answers of one limiter. */
export function compileFailureAnswers<N>(parts: {
  failure: FailurePolicy
  dryRun: boolean
  report: Reporter<N>
}): FailureAnswers<N> {
  const { failure, dryRun, report } = parts
  const closed = failure.mode === 'closed'
  const reasonOf = (error: unknown) =>
    error instanceof RateLimitRequestError
      ? error
      : new RateLimitRequestError('ERR_FLOODGATE_STORE_FAILED', `The store failed: ${message(error)}`, {
          cause: error,
        })
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
    fallback: failure.fallback,
    storeFailed(error, info) {
      const reason = reasonOf(error)
      report(reason, info)
      if (failure.mode !== 'fallback') failure.count()
      if (!closed || dryRun) return undecidedOutcome(reason)
      return answeredOutcome({
        status: 503,
        headers: { 'retry-after': CLOSED_RETRY_AFTER, ...NO_STORE },
        body: UNAVAILABLE_BODY,
        contentType: JSON_TYPE,
        limited: false,
        error: reason,
      })
    },
    fellBack(error, info) {
      report(reasonOf(error), info)
      failure.count()
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
