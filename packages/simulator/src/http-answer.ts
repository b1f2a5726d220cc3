import type { Algorithm, Decision } from '@floodgate/core'
import type { HeaderMode } from '@floodgate/core/internal'
import { compileHeaders, NEVER, seconds } from '@floodgate/core/internal'

/** What an HTTP server running Floodgate answers to one request. */
export interface Answer {
  /** 200 when admitted, 429 when refused, 413 when the request costs more than the policy ever allows. */
  readonly status: 200 | 429 | 413
  /** Response headers in lower case: the rate-limit headers, and on a 429 `retry-after` (whole seconds). */
  readonly headers: Readonly<Record<string, string>>
}

/** Options of {@link answerer}. */
export interface AnswerOptions {
  /**
   * The policy's name, as `RateLimit-Policy` shows it (draft-8).
   * @default 'simulated'
   */
  name?: string
  /**
   * The rate-limit header formats, as the adapters' `headers` option takes them.
   * @default ['draft-6']
   */
  headers?: readonly HeaderMode[]
}

/**
 * Turn decisions into the HTTP answers the adapters send: the status, core's own rate-limit headers, and on a
 * refusal `Retry-After` in whole seconds, rounded up and at least 1. A request that can never pass (its cost
 * is above the limit) is answered 413 without `Retry-After`, as core's handler does.
 *
 * @example
 * const answer = answerer(tokenBucket({ capacity: 10, refillRate: 1 }))
 * answer(decision, now) // { status: 429, headers: { 'retry-after': '1', 'ratelimit-remaining': '0', ... } }
 */
export function answerer(
  algorithm: Algorithm,
  options: AnswerOptions = {},
): (decision: Decision, now: number) => Answer {
  const write = compileHeaders(options.headers ?? ['draft-6'], [
    { name: options.name ?? 'simulated', limit: algorithm.limit, windowMs: algorithm.windowMs },
  ])
  return (decision, now) => {
    const headers: Record<string, string> = {}
    write?.(headers, [decision], 0, now)
    if (decision.allowed) return { status: 200, headers }
    if (decision.retryAfterMs === NEVER) return { status: 413, headers }
    headers['retry-after'] = String(Math.max(1, seconds(decision.retryAfterMs)))
    return { status: 429, headers }
  }
}
