import { retryAfterSeconds } from '../http/answer.js'
import { JSON_TYPE, PROBLEM_TYPE, type ResponseFormat } from '../http/bodies.js'
import type { AnswerOutcome } from './gate.js'

/** The RateLimit draft's problem type for a server that is short of capacity (503). */
export const REDUCED_CAPACITY_TYPE =
  'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity'

const TITLES = {
  queue_full: 'Too Many Requests',
  queue_timeout: 'Temporary Reduced Capacity',
  shed: 'Temporary Reduced Capacity',
} as const

const plural = (n: number) => `${n} second${n === 1 ? '' : 's'}`

/** The message of each reason, in words a client's log can show. */
function messageOf(reason: AnswerOutcome['reason'], priority: string, retryAfter: number, waitedMs: number) {
  switch (reason) {
    case 'queue_full':
      return `The ${priority} queue is full, retry in ${plural(retryAfter)}.`
    case 'queue_timeout':
      return `Waited ${plural(Math.round(waitedMs / 1000))} in the ${priority} queue without being served, retry in ${plural(retryAfter)}.`
    case 'shed':
      return `The server is overloaded and is shedding ${priority} requests, retry in ${plural(retryAfter)}.`
  }
}

/**
 * Build the answer of a request refused here: `429` for a full queue, `503` for a wait that ran out or a
 * request shed, with `Retry-After` (whole seconds, at least 1) and `Cache-Control: no-store`. The body is
 * `{ "error": reason, "message", "retryAfter", "priority" }`, or with `'problem+json'` RFC 9457 problem
 * details (`temporary-reduced-capacity` for the 503s, the RateLimit draft's problem type).
 */
export function answer(parts: {
  reason: AnswerOutcome['reason']
  priority: string
  retryAfterMs: number
  waitedMs?: number
  format: ResponseFormat
}): AnswerOutcome {
  const { reason, priority, format } = parts
  const status = reason === 'queue_full' ? 429 : 503
  const retryAfter = retryAfterSeconds(parts.retryAfterMs)
  const message = messageOf(reason, priority, retryAfter, parts.waitedMs ?? 0)
  const body =
    format === 'json'
      ? JSON.stringify({ error: reason, message, retryAfter, priority })
      : JSON.stringify({
          type: status === 503 ? REDUCED_CAPACITY_TYPE : 'about:blank',
          title: TITLES[reason],
          status,
          detail: message,
          retryAfter,
          priority,
        })
  return {
    kind: 'answer',
    status,
    headers: { 'retry-after': String(retryAfter), 'cache-control': 'no-store' },
    body,
    contentType: format === 'json' ? JSON_TYPE : PROBLEM_TYPE,
    reason,
    priority,
    retryAfterMs: parts.retryAfterMs,
  }
}
