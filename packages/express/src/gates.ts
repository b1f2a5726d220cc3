import type { RequestSlowDown } from '@floodgate/core'
import {
  createSlowDown,
  enterGate,
  type Gate,
  type GateOutcome,
  gateMiddlewares,
  type LoadShedder,
  type LoadShedderOptions,
  type PriorityQueue,
  type PriorityQueueOptions,
  type SlowDown,
  type SlowDownOptions,
  type SlowDownOutcome,
  setHeaders,
  writeAnswer,
} from '@floodgate/core/internal'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { ExpressRequestInfo } from './request-info.js'

/** The options of the Express priority queue: every core option; `priority` gets Express's `req`. */
export type ExpressPriorityQueueOptions = PriorityQueueOptions<Request>

/** The options of the Express load shedder: every core option; `priority` gets Express's `req`. */
export type ExpressLoadShedderOptions = LoadShedderOptions<Request>

/** The options of the Express slow-down: every core option; `key` and `delay` functions get Express's `req`. */
export type ExpressSlowDownOptions = SlowDownOptions<Request>

declare global {
  namespace Express {
    interface Request {
      /** What the slow-down decided for this request: `limit` (its `after`), `used`, `remaining`, `reset`, `delay`. */
      slowDown?: RequestSlowDown
    }
  }
}

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

/** Go on after the slow-down's delay, with its headers; nothing when the client has left. */
function goOn(outcome: SlowDownOutcome, req: Request, res: Response, next: NextFunction): void {
  if (outcome.kind === 'gone') return
  setHeaders(res, outcome.headers)
  req.slowDown = outcome.slowDown
  next()
}

/**
 * Slow repeated requests down instead of refusing them: the first `after` requests of a client in a `window`
 * go at once; each later one waits `delay` more than the one before, never more than `maxDelay`. No request
 * is refused. `req.slowDown` says what happened; a client that disconnects while it waits stops waiting.
 *
 * @example app.post('/login', slowDown({ after: 5, delay: '500ms', maxDelay: '10s', window: '15m' }), login)
 */
export function slowDown(
  options?: ExpressSlowDownOptions,
): RequestHandler & { readonly slowDown: SlowDown<Request> } {
  const slow = createSlowDown<Request>(options)
  const middleware: RequestHandler = (req, res, next) => {
    const entry = slow.enter(new ExpressRequestInfo(req))
    res.once('close', entry.leave)
    const outcome = entry.outcome
    if (outcome instanceof Promise) outcome.then((o) => goOn(o, req, res, next), next)
    else goOn(outcome, req, res, next)
  }
  return Object.assign(middleware, { slowDown: slow })
}
