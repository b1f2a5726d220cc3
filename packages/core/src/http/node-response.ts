import type { ServerResponse } from 'node:http'
import type { Gate, GateOutcome } from '../degradation/gate.js'
import { createLoadShedder, type LoadShedder } from '../degradation/load-shedder/create.js'
import type { LoadShedderOptions } from '../degradation/load-shedder/options.js'
import { createPriorityQueue, type PriorityQueue } from '../degradation/priority-queue/create.js'
import type { PriorityQueueOptions } from '../degradation/priority-queue/options.js'
import type { Awaitable } from '../types.js'
import type { HttpAnswer } from './answer.js'
import type { RateLimitHandler } from './handler-types.js'
import type { Outcome } from './outcome.js'
import type { RequestInfo } from './request-info.js'

/**
 * The one writer of Floodgate's answers on a Node response (`http.ServerResponse`), shared by the Express and
 * Koa adapters and by every gate: an adapter maps its request in, calls these, and goes on when told to.
 */

/** Set each header of `headers` on the response. */
export function setHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const name in headers) res.setHeader(name, headers[name]!)
}

/**
 * Write an answer whole: status, headers, content type and length, body. Nothing when the response has
 * already been sent or its connection is gone. The length is set even for HEAD (which sends no body), so
 * keep-alive clients keep the connection.
 */
export function writeAnswer(res: ServerResponse, answer: HttpAnswer): void {
  if (res.headersSent || res.destroyed) return
  res.statusCode = answer.status
  setHeaders(res, answer.headers)
  res.setHeader('content-type', answer.contentType)
  res.setHeader('content-length', Buffer.byteLength(answer.body))
  res.end(answer.body)
}

/**
 * Write what a limiter decided: a pass's headers, then `true` (the request goes on); or its answer, then
 * `false`. A header the framework refuses (a custom handler's, an `onLimited` hook's) gets the 500 of
 * `writeFailed` instead, and the server keeps serving. With `skipFailedRequests` or `skipSuccessfulRequests`,
 * or a policy that settles its cost (`settle`), the end of a passed request's response is reported to the
 * limiter for its refunds and its settlement; `response` is what the `settle` functions get (Koa's `ctx`; by
 * default `res`, which is Express's own response).
 */
export function writeOutcome<N>(
  handler: RateLimitHandler<N>,
  outcome: Outcome,
  info: RequestInfo<N>,
  res: ServerResponse,
  response: unknown = res,
): boolean {
  try {
    if (outcome.kind === 'answer') {
      writeAnswer(res, outcome)
      return false
    }
    setHeaders(res, outcome.headers)
  } catch (error) {
    answerWriteFailure(handler, error, info, res)
    return false
  }
  if (handler.refunds && (outcome.items || outcome.settlement))
    completeOnClose(handler, outcome, res, response)
  return true
}

/** Answer 500 in place of what could not be written; a response already on its way is cut off instead. */
function answerWriteFailure<N>(
  handler: RateLimitHandler<N>,
  error: unknown,
  info: RequestInfo<N>,
  res: ServerResponse,
): void {
  try {
    if (res.headersSent) {
      res.destroy()
      return
    }
    for (const name of res.getHeaderNames()) res.removeHeader(name)
    writeAnswer(res, handler.writeFailed(error, info))
  } catch {
    res.destroy()
  }
}

/**
 * Tell the limiter how the response ended (its status, or 0 when the connection closed first). A function of
 * its own: a closure made in a function on every request's path would make each call of it allocate a context.
 */
function completeOnClose<N>(
  handler: RateLimitHandler<N>,
  outcome: Outcome,
  res: ServerResponse,
  response: unknown,
): void {
  res.once('close', () => handler.complete(outcome, res.writableFinished ? res.statusCode : 0, response))
}

/**
 * Take a request through a gate (`priorityQueue`, `loadShedder`): it enters, leaves when its response closes
 * (finished, or the client went away), and gets the gate's outcome: a pass, an answer, or gone (the client
 * left while it waited: nothing to write).
 */
export function enterGate<N>(
  gate: Gate<N>,
  info: RequestInfo<N>,
  res: ServerResponse,
): Awaitable<GateOutcome> {
  const entry = gate.enter(info)
  res.once('close', entry.leave)
  return entry.outcome
}

/**
 * An adapter's `priorityQueue` and `loadShedder`, from its one middleware around a gate: each creates its
 * gate (options checked now) and returns the middleware, with the gate on it (`queue`, `shedder`) for its
 * `stats()`.
 */
export function gateMiddlewares<N, M extends object>(middleware: (gate: Gate<N>) => M) {
  return {
    priorityQueue(options: PriorityQueueOptions<N>): M & { readonly queue: PriorityQueue<N> } {
      const queue = createPriorityQueue<N>(options)
      return Object.assign(middleware(queue), { queue })
    },
    loadShedder(options: LoadShedderOptions<N>): M & { readonly shedder: LoadShedder<N> } {
      const shedder = createLoadShedder<N>(options)
      return Object.assign(middleware(shedder), { shedder })
    },
  }
}
