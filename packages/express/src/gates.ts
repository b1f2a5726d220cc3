import type {
  Gate,
  GateOutcome,
  LoadShedder,
  LoadShedderOptions,
  PriorityQueue,
  PriorityQueueOptions,
} from '@floodgate/core/internal'
import { enterGate, gateMiddlewares, writeAnswer } from '@floodgate/core/internal'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { ExpressRequestInfo } from './request-info.js'

/** The options of the Express priority queue: every core option; `priority` gets Express's `req`. */
export type ExpressPriorityQueueOptions = PriorityQueueOptions<Request>

/** The options of the Express load shedder: every core option; `priority` gets Express's `req`. */
export type ExpressLoadShedderOptions = LoadShedderOptions<Request>

function write(outcome: GateOutcome, res: Response, next: NextFunction): void {
  if (outcome.kind === 'pass') next()
  else if (outcome.kind === 'answer') writeAnswer(res, outcome)
}

/** Express middleware around a core gate: the request proceeds or gets the gate's answer. */
function gateMiddleware(gate: Gate<Request>): RequestHandler {
  return (req, res, next) => {
    const outcome = enterGate(gate, new ExpressRequestInfo(req), res)
    if (outcome instanceof Promise) outcome.then((o) => write(o, res, next), next)
    else write(outcome, res, next)
  }
}

const gates = gateMiddlewares<Request, RequestHandler>(gateMiddleware)

/**
 * Serve at most `concurrency` requests at once; the others wait in the queue `priority` names, drained in
 * the order the queues are listed. A full queue answers 429, a request that waited `maxWait` 503, both with
 * `Retry-After`; a client that disconnects while waiting leaves its queue at once.
 *
 * @example
 * app.use(priorityQueue({
 *   concurrency: 64,
 *   priority: (req) => (req.user?.plan === 'premium' ? 'premium' : 'standard'),
 *   queues: { premium: { capacity: 500 }, standard: { capacity: 100 } },
 *   maxWait: '10s',
 * }))
 */
export const priorityQueue: (
  options: ExpressPriorityQueueOptions,
) => RequestHandler & { readonly queue: PriorityQueue<Request> } = gates.priorityQueue

/**
 * Shed the least important requests (503 with `Retry-After`) when the server is overloaded: past a class's
 * share of `maxInFlight`, or while the event loop's delay stays above `maxEventLoopDelay`.
 *
 * @example
 * app.use(loadShedder({
 *   priority: (req) => (req.path.startsWith('/checkout') ? 'critical' : req.method === 'GET' ? 'normal' : 'sheddable'),
 *   maxInFlight: 256,
 *   maxEventLoopDelay: '100ms',
 *   reserve: { critical: 0.2 },
 * }))
 */
export const loadShedder: (
  options: ExpressLoadShedderOptions,
) => RequestHandler & { readonly shedder: LoadShedder<Request> } = gates.loadShedder
