import {
  createRateLimitHandler,
  type Outcome,
  type ProxyTrust,
  RateLimitConfigError,
  type RateLimitOptions,
  type RequestInfo,
  type UsageReport,
} from '@floodgate/core'
import type { Context, Middleware, Next } from 'koa'
import { type MatchingRouter, routePattern } from './route-pattern.js'

export type { Outcome, RateLimitOptions, Usage, UsageReport } from '@floodgate/core'
export { type KoaLoadShedderOptions, loadShedder } from './load-shedder.js'
export { type KoaPriorityQueueOptions, priorityQueue } from './priority-queue.js'

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
    /** What `@floodgate/koa` decided for this request, when it proceeds. */
    rateLimit?: Outcome
  }
}

/** Koa's proxy settings, as core reads them: `app.proxy` off trusts none; on, with no `maxIpsCount`, all. */
function proxyTrust(ctx: Context): ProxyTrust {
  const app = ctx.app as { proxy?: boolean; maxIpsCount?: number }
  return app.proxy !== true ? 'none' : (app.maxIpsCount ?? 0) > 0 ? 'some' : 'all'
}

/** A request as core sees it; the route pattern is found only when something reads it. */
class KoaRequestInfo implements RequestInfo<Context> {
  readonly ip: string
  readonly method: string
  readonly path: string
  readonly headers: Context['headers']
  readonly proxyTrust: ProxyTrust
  private pattern: string | null | undefined
  private found = false

  constructor(
    readonly native: Context,
    private readonly routers: readonly MatchingRouter[],
  ) {
    this.ip = native.ip
    this.method = native.method
    this.path = native.url
    this.headers = native.headers
    this.proxyTrust = proxyTrust(native)
  }

  get route(): string | null | undefined {
    if (!this.found) {
      this.pattern = routePattern(this.native, this.routers)
      this.found = true
    }
    return this.pattern
  }
}

function send(ctx: Context, outcome: Outcome): void {
  ctx.set(outcome.headers)
  ctx.status = outcome.status
  ctx.set('content-type', outcome.contentType!)
  ctx.body = outcome.body
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
    try {
      if (!outcome.allowed) return void send(ctx, outcome)
      ctx.set(outcome.headers)
    } catch (error) {
      // A header Koa refused (a custom handler's, say): answer 500 and keep serving.
      for (const name of ctx.res.getHeaderNames()) ctx.remove(name)
      return void send(ctx, handler.writeFailed(error, info))
    }
    ctx.state.rateLimit = outcome
    if (handler.refunds && outcome.items) completeOnClose(outcome, ctx.res)
    return next()
  }
  // Functions of their own: a closure made in a function on every request's path would make each call of it
  // allocate a context.
  const completeOnClose = (outcome: Outcome, res: Context['res']): void => {
    res.once('close', () => handler.complete(outcome, res.writableFinished ? res.statusCode : 0))
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
  return Object.assign(floodgate, { usage: handler.usage })
}

/** The middleware, with the usage report of its plans (`usage(apiKey)`, `resetUsage(apiKey)`) when it has `plans`. */
export type RateLimitMiddleware = Middleware & { readonly usage: UsageReport | undefined }
