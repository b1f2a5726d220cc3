import { NEVER } from '../algorithms/decide.js'
import type { Decision } from '../types.js'
import { retryAfterSeconds } from './answer.js'
import { type AnsweredRequest, answeredOutcome } from './outcome.js'
import {
  COST_EXCEEDS_LIMIT_STATUS,
  compileBody,
  costExceedsLimitBody,
  JSON_TYPE,
  PROBLEM_TYPE,
  quotaExceededBody,
  type ResponseFormat,
} from './responses.js'

/** What a refusal is made of, fixed at creation. */
export interface RefusalOptions {
  /** The status of a refusal (`statusCode`). */
  status: number
  format: ResponseFormat
}

/** Builds the refusal of one request from its decisions, the refusing one's index, its cost and its message. */
export type RefusalBuilder = (parts: {
  headers: Record<string, string>
  decisions: Decision[]
  chosen: number
  cost: number
  message: string | undefined
  /** Whether the refusing policy is a usage plan's quota: the body says "Limit Exceeded". */
  quota: boolean
  /** The usage plan the request was decided under. */
  plan: string | undefined
}) => AnsweredRequest

/**
 * Compile the refusal once. A refusal carries `Retry-After` (whole seconds, at least 1: when the request can
 * pass) and `Cache-Control: no-store`, with the body of `format`. A request whose cost is above the policy's
 * limit can never pass: it is answered 413 with a `cost_exceeds_limit` body and no `Retry-After`, so no
 * client waits for a retry that cannot succeed.
 */
export function compileRefusal(options: RefusalOptions): RefusalBuilder {
  const { status, format } = options
  const contentType = format === 'problem+json' ? PROBLEM_TYPE : JSON_TYPE
  const bodyOf = compileBody(format, status)
  return ({ headers, decisions, chosen, cost, message, quota, plan }) => {
    const decision = decisions[chosen]!
    headers['cache-control'] = 'no-store'
    if (decision.retryAfterMs === NEVER) {
      return answeredOutcome({
        status: COST_EXCEEDS_LIMIT_STATUS,
        headers,
        body: costExceedsLimitBody(format, decision.policy, cost, decision.limit),
        contentType,
        limited: true,
        decisions,
        decision,
        plan,
      })
    }
    const retryAfter = retryAfterSeconds(decision.retryAfterMs)
    headers['retry-after'] = String(retryAfter)
    return answeredOutcome({
      status,
      headers,
      body:
        quota && message === undefined
          ? quotaExceededBody(format, decision.policy, retryAfter)
          : bodyOf(decision.policy, retryAfter, message),
      contentType,
      limited: true,
      decisions,
      decision,
      plan,
    })
  }
}
