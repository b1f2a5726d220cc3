import type { Decision } from '../../types.js'
import type { ResponseFormat } from '../bodies.js'
import type { HeadersOption } from '../headers.js'
import type { Outcome } from '../outcome.js'
import type { RequestInfo } from '../request-info.js'
import type { LimitedResponse } from './policy-types.js'

/** The options of what a response carries and how a refusal reads, part of {@link RateLimitOptions}. */
export interface ResponseOptions<N = any> {
  /**
   * Which rate-limit headers every response carries: `'draft-6'`, `'draft-7'`, `'draft-8'`, `'legacy'`,
   * one draft plus `'legacy'` in an array, or `false`. 429s always carry `Retry-After`.
   * @default 'draft-6'
   * @example ['draft-8', 'legacy']
   */
  headers?: HeadersOption
  /**
   * Called on every refused request (in dry run too), before the response is sent. Errors it throws go to
   * `onError`.
   * @example (req, outcome) => log.warn({ policy: outcome.decision?.policy }, 'rate limited')
   */
  onLimited?: (req: N, outcome: Outcome) => void
  /**
   * The 429 body's message, or a function of the request and the refusing decision.
   * @default 'Too many requests, retry in 30 seconds.' (with the actual wait)
   * @example 'Slow down.'
   */
  message?: string | ((req: N, info: RequestInfo<N>, decision: Decision) => string)
  /**
   * The status of a refusal.
   * @default 429
   * @example 503
   */
  statusCode?: number
  /**
   * The 429 body: `'json'` is `{ error, message, retryAfter, policy }`; `'problem+json'` is RFC 9457
   * problem details (`application/problem+json`).
   * @default 'json'
   * @example 'problem+json'
   */
  format?: ResponseFormat
  /**
   * Your own refusal: return the status, body, content type or headers to change; the rest stays default.
   * When it throws or rejects the default refusal is sent; when what it returns cannot be sent (a status
   * outside 200-599, a header value with CR or LF), the answer is 500. Both go to `onError`.
   * @example (req, outcome) => ({ body: { error: 'slow down', wait: outcome.decision?.retryAfterMs } })
   */
  handler?: (
    req: N,
    outcome: Outcome,
    info: RequestInfo<N>,
  ) => LimitedResponse | undefined | Promise<LimitedResponse | undefined>
}
