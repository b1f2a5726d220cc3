import {
  type Outcome,
  RateLimitConfigError,
  type RateLimitOptions,
  type RequestRateLimit,
} from '@floodgate/core'
import {
  createRateLimitHandler,
  type LimiterControls,
  withControls,
  writeOutcome,
} from '@floodgate/core/internal'
import type { Context, Middleware, Next } from 'koa'
import { KoaRequestInfo } from './request-info.js'
import type { MatchingRouter } from './route-pattern.js'

export type {
  Outcome,
  OverrideEntry,
  Overrides,
  RateLimitOptions,
  RequestRateLimit,
  RequestSlowDown,
  Unban,
  Usage,
  UsageReport,
} from '@floodgate/core'
export {
  type KoaLoadShedderOptions,
  type KoaPriorityQueueOptions,
  type KoaSlowDownOptions,
  loadShedder,
  priorityQueue,
  slowDown,
} from './gates.js'

/** The options of the Koa middleware: every core option (functions get Koa's `ctx`), and `router`. */
export interface KoaRateLimitOptions extends RateLimitOptions<Context> {
  /**
   * The router(s) an `'endpoint'` key on a limiter used before routing (`app.use`) finds the route from. Without
   * it, the app's own `@koa/router` middlewares (`app.use(router.routes())`, before or after the limiter) are
   * found by themselves: give it for a router whose middleware Koa's app does not hold (mounted in a sub-app,
   * say), or any router with `@koa/router`'s `match(path, method)`. Inside a router the route is known without it.
   * @default the app's @koa/router middlewares
   * @example router
   */
  router?: MatchingRouter | readonly MatchingRouter[]
}

declare module 'koa' {
  interface DefaultState {
    /** What the app reads of the limit that let this request through: `limit`, `remaining`, `reset`, `policy`. */
    rateLimit?: RequestRateLimit
  }
}

function routersOf(router: KoaRateLimitOptions['router']): readonly MatchingRouter[] {
  const routers = router === undefined ? [] : Array.isArray(router) ? router : [router]
  for (const r of routers) {
    if (typeof (r as Partial<MatchingRouter> | null)?.match !== 'function') {
      throw new RateLimitConfigError(
        'ERR_FLOODGATE_INVALID_OPTION',
        'rateLimit.router',
        router,
        'a @koa/router Router or an array of them',
      )
    }
  }
  return routers as readonly MatchingRouter[]
}

/**
 * Rate limiting middleware for Koa: on the app, or on a `@koa/router` route or router. The client address is
 * Koa's `ctx.ip`, so `app.proxy` (and `app.maxIpsCount`) decide it. An `'endpoint'` key is the route pattern
 * from `@koa/router`: inside a router it is known; on the app, it is found from the app's router middlewares.
 *
 * @example app.use(rateLimit({ limit: 100, window: '1m' }))
 * @example router.post('/login', rateLimit({ limit: 5, window: '15m' }), login)
 */
export function rateLimit(options: KoaRateLimitOptions = {}): RateLimitMiddleware {
  const valid = typeof options === 'object' && options !== null && !Array.isArray(options)
  const { router, ...core } = valid ? options : ({} as KoaRateLimitOptions)
  const handler = createRateLimitHandler<Context>(valid ? core : (options as RateLimitOptions<Context>))
  const routers = routersOf(router)
  const proceed = (
    ctx: Context,
    next: Next,
    info: KoaRequestInfo,
    outcome: Outcome,
  ): Promise<void> | undefined => {
    if (!writeOutcome(handler, outcome, info, ctx.res, ctx)) {
      ctx.respond = false
      return
    }
    ctx.state.rateLimit = outcome.rateLimit
    return next()
  }
  const proceedLater = (ctx: Context, next: Next, info: KoaRequestInfo, decided: Promise<Outcome>) =>
    decided.then((outcome) => proceed(ctx, next, info, outcome))
  // Not an async function: an outcome decided in this tick (the MemoryStore) goes straight on to `next`.
  const floodgate: Middleware = (ctx, next) => {
    const info = new KoaRequestInfo(ctx, routers)
    const decided = handler.handle(info, ctx.state.rateLimit)
    if (decided instanceof Promise) return proceedLater(ctx, next, info, decided)
    return proceed(ctx, next, info, decided)
  }
  return withControls(floodgate, handler)
}

/**
 * The middleware, with the usage report of its plans (`usage(apiKey)`, `resetUsage(apiKey)`) when it has `plans`,
 * and `unban(key, { policy })`, which lifts a `ban` early on every server sharing the store.
 */
export type RateLimitMiddleware = Middleware & LimiterControls
