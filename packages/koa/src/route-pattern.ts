import type { Context } from 'koa'

/**
 * The route pattern of a request, from `@koa/router`: never the raw path, so ids never reach a key.
 *
 * Inside a router (a route's middleware, or `router.use()`), it is the route that will handle the request:
 * the last layer the router matched for this path that has the request's method (`router.use()` layers have
 * none, and their path is a prefix pattern, not a route). Before routing, it is what the routers given as
 * the `router` option would match.
 */

/** The parts of a `@koa/router` layer this reads. */
interface Layer {
  path: string | RegExp
  methods: string[]
}
/** The part of a `@koa/router` Router this reads. */
export interface MatchingRouter {
  match(path: string, method: string): { pathAndMethod: Layer[] }
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
 * The request's route pattern: a string, `null` when none of `routers` has a route for it (a 404), or
 * `undefined` when it cannot be known (before routing, with no `router` option).
 */
export function routePattern(ctx: Context, routers: readonly MatchingRouter[]): string | null | undefined {
  const inRouter = routeOf((ctx as { matched?: Layer[] }).matched, ctx.method)
  if (inRouter !== undefined) return inRouter
  if (routers.length === 0) return undefined
  for (const router of routers) {
    const found = routeOf(router.match(ctx.path, ctx.method).pathAndMethod, ctx.method)
    if (found !== undefined) return found
  }
  return null
}
