import { createLoadShedder, type LoadShedder, type LoadShedderOptions } from '@floodgate/core'
import type { Request, RequestHandler } from 'express'
import { gateMiddleware } from './gate.js'

/** The options of the Express load shedder: every core option; `priority` gets Express's `req`. */
export type ExpressLoadShedderOptions = LoadShedderOptions<Request>

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
export function loadShedder(
  options: ExpressLoadShedderOptions,
): RequestHandler & { readonly shedder: LoadShedder<Request> } {
  const shedder = createLoadShedder<Request>(options)
  return Object.assign(gateMiddleware(shedder), { shedder })
}
