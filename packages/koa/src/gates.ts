import type { RequestSlowDown } from '@floodgate/core'
import {
  createSlowDown,
  enterGate,
  type Gate,
  gateMiddlewares,
  type LoadShedder,
  type LoadShedderOptions,
  type PriorityQueue,
  type PriorityQueueOptions,
  type SlowDown,
  type SlowDownOptions,
  writeAnswer,
} from '@floodgate/core/internal'
import type { Context, Middleware } from 'koa'
import { KoaRequestInfo } from './request-info.js'

/** The options of the Koa priority queue: every core option; `priority` gets Koa's `ctx`. */
export type KoaPriorityQueueOptions = PriorityQueueOptions<Context>

/** The options of the Koa load shedder: every core option; `priority` gets Koa's `ctx`. */
export type KoaLoadShedderOptions = LoadShedderOptions<Context>

/** The options of the Koa slow-down: every core option; `key` and `delay` functions get Koa's `ctx`. */
export type KoaSlowDownOptions = SlowDownOptions<Context>

declare module 'koa' {
  interface DefaultState {
    /** What the slow-down decided for this request: `limit` (its `after`), `used`, `remaining`, `reset`, `delay`. */
    slowDown?: RequestSlowDown
  }
}

/** Koa middleware around a core gate: the request proceeds or gets the gate's answer. */
function gateMiddleware(gate: Gate<Context>): Middleware {
  return async function floodgateGate(ctx, next) {
    const outcome = await enterGate(gate, new KoaRequestInfo(ctx, []), ctx.res)
    if (outcome.kind === 'pass') return next()
    ctx.respond = false
    if (outcome.kind === 'answer') writeAnswer(ctx.res, outcome)
  }
}

const gates = gateMiddlewares<Context, Middleware>(gateMiddleware)

/**
 * Serve at most `concurrency` requests at once; the others wait in the queue `priority` names, drained in
 * the order the queues are listed. A full queue answers 429, a request that waited `maxWait` 503, both with
 * `Retry-After`; a client that disconnects while waiting leaves its queue at once.
 *
 * @example
 * app.use(priorityQueue({
 *   concurrency: 64,
 *   priority: (ctx) => (ctx.state.user?.plan === 'premium' ? 'premium' : 'standard'),
 *   queues: { premium: { capacity: 500 }, standard: { capacity: 100 } },
 *   maxWait: '10s',
 * }))
 */
export const priorityQueue: (
  options: KoaPriorityQueueOptions,
) => Middleware & { readonly queue: PriorityQueue<Context> } = gates.priorityQueue

/**
 * Shed the least important requests (503 with `Retry-After`) when the server is overloaded: past a class's
 * share of `maxInFlight`, or while the event loop's delay stays above `maxEventLoopDelay`.
 *
 * @example
 * app.use(loadShedder({
 *   priority: (ctx) => (ctx.path.startsWith('/checkout') ? 'critical' : ctx.method === 'GET' ? 'normal' : 'sheddable'),
 *   maxInFlight: 256,
 *   maxEventLoopDelay: '100ms',
 *   reserve: { critical: 0.2 },
 * }))
 */
export const loadShedder: (
  options: KoaLoadShedderOptions,
) => Middleware & { readonly shedder: LoadShedder<Context> } = gates.loadShedder

/**
 * Slow repeated requests down instead of refusing them: the first `after` requests of a client in a `window`
 * go at once; each later one waits `delay` more than the one before, never more than `maxDelay`. No request
 * is refused. `ctx.state.slowDown` says what happened; a client that disconnects while it waits stops waiting.
 *
 * @example router.post('/login', slowDown({ after: 5, delay: '500ms', maxDelay: '10s', window: '15m' }), login)
 */
export function slowDown(
  options?: KoaSlowDownOptions,
): Middleware & { readonly slowDown: SlowDown<Context> } {
  const slow = createSlowDown<Context>(options)
  const middleware: Middleware = async function floodgateSlowDown(ctx, next) {
    const entry = slow.enter(new KoaRequestInfo(ctx, []))
    ctx.res.once('close', entry.leave)
    const outcome = await entry.outcome
    if (outcome.kind === 'gone') {
      ctx.respond = false
      return
    }
    ctx.set(outcome.headers)
    ctx.state.slowDown = outcome.slowDown
    return next()
  }
  return Object.assign(middleware, { slowDown: slow })
}
