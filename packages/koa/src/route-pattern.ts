import type { Context } from 'koa'

/**
 * The route pattern of a request, from `@koa/router`: never the raw path, so ids never reach a key.
 *
 * Inside a router (a route's middleware, or `router.use()`), it is the route that will handle the request:
 * the last layer the router matched for this path that has the request's method (`router.use()` layers have
 * none, and their path is a prefix pattern, not a route). Before routing, it is what the routers given as
 * the `router` option would match; without it, what the app's own router middlewares would match:
 * `@koa/router` marks the middleware `router.routes()` returns with its router (`middleware.router`).
 */

/** The parts of a `@koa/router` layer this reads. */
interface Layer {
  path: string | RegExp
  methods: string[]
}
/** The part of a `@koa/router` Router this reads. */
export interface MatchingRouter {
  match(path: string, method: string): { pathAndMethod: Layer[] }
  /** A router made with a `host` option routes only the requests to that host. */
  matchHost?(host: string): boolean
}

/** The routers of an app's router middlewares, found when its middleware list had `count` entries. */
interface AppRouters {
  count: number
  routers: readonly MatchingRouter[]
}
const appRouters = new WeakMap<object, AppRouters>()

/**
 * The routers whose `routes()` middleware the app uses, in order. Koa composes its middleware when the server
 * starts, so the list found on the first request holds; it is found again if the app's list has grown.
 */
function routersOfApp(app: { middleware?: unknown }): readonly MatchingRouter[] {
  const middleware = Array.isArray(app.middleware) ? (app.middleware as unknown[]) : []
  const known = appRouters.get(app)
  if (known !== undefined && known.count === middleware.length) return known.routers
  const routers: MatchingRouter[] = []
  for (const fn of middleware) {
    const router = (fn as { router?: Partial<MatchingRouter> } | null)?.router
    if (typeof router?.match === 'function') routers.push(router as MatchingRouter)
  }
  appRouters.set(app, { count: middleware.length, routers })
  return routers
}

function routeOf(layers: readonly Layer[] | undefined, method: string): string | undefined {
  if (layers === undefined) return undefined
  for (let i = layers.length - 1; i >= 0; i--) {
    const layer = layers[i]!
    if (layer.methods.length > 0 && layer.methods.includes(method)) return String(layer.path)
  }
  return undefined
}

/**
 * The request's route pattern: a string, `null` when none of the routers has a route for it (a 404), or
 * `undefined` when it cannot be known (before routing, with no `router` option and no router middleware on the
 * app).
 */
export function routePattern(ctx: Context, given: readonly MatchingRouter[]): string | null | undefined {
  const inRouter = routeOf((ctx as { matched?: Layer[] }).matched, ctx.method)
  if (inRouter !== undefined) return inRouter
  const routers = given.length > 0 ? given : routersOfApp(ctx.app)
  if (routers.length === 0) return undefined
  for (const router of routers) {
    if (router.matchHost !== undefined && !router.matchHost(ctx.host)) continue
    const found = routeOf(router.match(ctx.path, ctx.method).pathAndMethod, ctx.method)
    if (found !== undefined) return found
  }
  return null
}
