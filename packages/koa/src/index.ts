import {
  createRateLimitHandler,
  type Outcome,
  type RateLimitOptions,
  type RequestInfo,
} from '@floodgate/core'
import type { Context, Middleware } from 'koa'

export type { Outcome, RateLimitOptions } from '@floodgate/core'

/** The options of the Koa middleware: every core option; functions get Koa's `ctx`. */
export type KoaRateLimitOptions = RateLimitOptions<Context>

declare module 'koa' {
  interface DefaultState {
    /** What `@floodgate/koa` decided for this request, when it proceeds. */
    rateLimit?: Outcome
  }
}

/**
 * Rate limiting middleware for Koa: on the app, or on a `@koa/router` route. The client address is Koa's
 * `ctx.ip`, so `app.proxy` (and `app.maxIpsCount`) decide it. The route pattern comes from `@koa/router`
 * when the limiter runs inside a route; on the app, before routing, an `'endpoint'` key counts all of a
 * method's requests together.
 *
 * @example app.use(rateLimit({ limit: 100, window: '1m' }))
 * @example router.post('/login', rateLimit({ limit: 5, window: '15m' }), login)
 */
export function rateLimit(options?: KoaRateLimitOptions): Middleware {
  const handler = createRateLimitHandler<Context>(options)
  return async function floodgate(ctx, next) {
    const matched = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute
    const info: RequestInfo<Context> = {
      ip: ctx.ip,
      method: ctx.method,
      route: matched === undefined ? undefined : String(matched),
      path: ctx.url,
      headers: ctx.headers,
      native: ctx,
    }
    const outcome = await handler.handle(info, ctx.state.rateLimit)
    ctx.set(outcome.headers)
    if (!outcome.allowed) {
      ctx.status = outcome.status
      ctx.set('content-type', outcome.contentType!)
      ctx.body = outcome.body
      return
    }
    ctx.state.rateLimit = outcome
    if (handler.refunds && outcome.items) {
      const res = ctx.res
      res.once('close', () => handler.complete(outcome, res.writableFinished ? res.statusCode : 0))
    }
    await next()
  }
}
