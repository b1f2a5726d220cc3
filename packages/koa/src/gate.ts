import type { Gate, RequestInfo } from '@floodgate/core'
import type { Context, Middleware } from 'koa'

/**
 * Koa middleware around a core gate (`priorityQueue`, `loadShedder`): the request enters, leaves when the
 * response closes (finished, or the client went away), and proceeds or gets the gate's answer.
 */
export function gateMiddleware(gate: Gate<Context>): Middleware {
  return async function floodgateGate(ctx, next) {
    const info: RequestInfo<Context> = {
      ip: ctx.ip,
      method: ctx.method,
      route: undefined,
      path: ctx.url,
      headers: ctx.headers,
      native: ctx,
    }
    const entry = gate.enter(info)
    ctx.res.once('close', entry.leave)
    const outcome = await entry.outcome
    if (outcome.kind === 'pass') return next()
    if (outcome.kind === 'gone') {
      ctx.respond = false
      return
    }
    ctx.set(outcome.headers)
    ctx.status = outcome.status
    ctx.set('content-type', outcome.contentType)
    ctx.body = outcome.body
  }
}
