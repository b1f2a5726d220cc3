import type { HttpAnswer } from '@floodgate/core/internal'
import { retryAfterSeconds } from '@floodgate/core/internal'
import type { EnqueueResult } from './queue.js'

/** An HTTP answer to an enqueue, for any framework: Floodgate's one answer type, with a JSON body. */
export interface QueueAnswer extends HttpAnswer {
  readonly status: 202 | 413 | 429 | 503
  readonly contentType: 'application/json; charset=utf-8'
}

/**
 * The answer to an enqueue: `202 Accepted` with `{ id, queue, position, ahead }` (and `Location` when you say
 * where a job's status is), `429` with `Retry-After` for a full lane, `413` for a payload over the limit,
 * `503` with `Retry-After` when Redis is unavailable.
 *
 * @example const a = queueAnswer(await queue.enqueue(plan, body), { location: (id) => `/jobs/${id}` })
 * res.status(a.status).set(a.headers).type(a.contentType).send(a.body)
 */
export function queueAnswer(
  result: EnqueueResult,
  options: { location?: (id: string) => string } = {},
): QueueAnswer {
  const contentType = 'application/json; charset=utf-8' as const
  const noStore = { 'cache-control': 'no-store' }
  if (result.accepted) {
    const headers: Record<string, string> = { ...noStore }
    if (options.location) headers.location = options.location(result.id)
    const { id, queue, position, ahead } = result
    return {
      kind: 'answer',
      status: 202,
      headers,
      body: JSON.stringify({ id, queue, position, ahead }),
      contentType,
    }
  }
  switch (result.reason) {
    case 'too_large':
      return {
        kind: 'answer',
        status: 413,
        headers: noStore,
        body: JSON.stringify({
          error: 'payload_too_large',
          message: `The job is ${result.size} bytes, more than the ${result.limit} this queue takes.`,
          limit: result.limit,
        }),
        contentType,
      }
    case 'full': {
      const retryAfter = retryAfterSeconds(result.retryAfterMs)
      return {
        kind: 'answer',
        status: 429,
        headers: { ...noStore, 'retry-after': String(retryAfter) },
        body: JSON.stringify({
          error: 'queue_full',
          message: `The ${result.queue} queue is full, retry in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
          retryAfter,
          queue: result.queue,
        }),
        contentType,
      }
    }
    case 'unavailable': {
      const retryAfter = retryAfterSeconds(result.retryAfterMs)
      return {
        kind: 'answer',
        status: 503,
        headers: { ...noStore, 'retry-after': String(retryAfter) },
        body: JSON.stringify({
          error: 'queue_unavailable',
          message: `The queue is unavailable, retry in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
          retryAfter,
          queue: result.queue,
        }),
        contentType,
      }
    }
  }
}
