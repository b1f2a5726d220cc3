import { createLoadShedder, type LoadShedder, type LoadShedderOptions } from '@floodgate/core'
import type { Context, Middleware } from 'koa'
import { gateMiddleware } from './gate.js'

/** The options of the Koa load shedder: every core option; `priority` gets Koa's `ctx`. */
export type KoaLoadShedderOptions = LoadShedderOptions<Context>

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
export function loadShedder(
  options: KoaLoadShedderOptions,
): Middleware & { readonly shedder: LoadShedder<Context> } {
  const shedder = createLoadShedder<Context>(options)
  return Object.assign(gateMiddleware(shedder), { shedder })
}
