import type { Request } from 'express'

/**
 * The route pattern of a request, with the patterns of the routers it is mounted under
 * (`/orgs/:org/posts/:postId`), read from Express's router: never the raw path, so ids never reach a key.
 *
 * Inside a route (`app.get('/x', rateLimit(), ...)`, `router.use(rateLimit())` within a route), the route is
 * `req.route`; its mount patterns are found once by walking the app's router tree, and cached per route.
 * Before routing (`app.use(rateLimit())`), the route that will match is found the way Express will find it:
 * each layer's own matcher, in order, with its method.
 */

/** The parts of Express's router (the `router` package) this reads. */
interface Layer {
  route?: Route
  handle: { stack?: Layer[] }
  rawPath?: unknown
  slash?: boolean
  match(path: string): { path: string; pattern?: unknown } | false
}
interface Route {
  path: unknown
  _handlesMethod(method: string): boolean
}
interface Router {
  stack: Layer[]
}

const patternText = (pattern: unknown): string => (typeof pattern === 'string' ? pattern : String(pattern))
/** A mount prefix as it joins a path: `/` (or a router mounted without a path) adds nothing. */
const prefixText = (pattern: unknown): string => {
  const text = patternText(pattern)
  return text === '/' ? '' : text.endsWith('/') ? text.slice(0, -1) : text
}

/** Every full pattern under which `target` is mounted in `router` (one, usually). */
function mountedPatterns(router: Router, target: Route, prefix: string, out: string[], depth: number): void {
  if (depth > 32) return
  for (const layer of router.stack) {
    const paths = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath]
    if (layer.route === target) {
      for (const path of paths) out.push(prefix + patternText(path))
    } else if (!layer.route && Array.isArray(layer.handle?.stack)) {
      for (const path of paths) {
        mountedPatterns(
          layer.handle as Router,
          target,
          prefix + (layer.slash ? '' : prefixText(path)),
          out,
          depth + 1,
        )
      }
    }
  }
}

/** The pattern of the route that matches `path` and `method` in `router`, walking as Express dispatches. */
function matchingPattern(
  router: Router,
  path: string,
  method: string,
  prefix: string,
  depth: number,
): string | null {
  if (depth > 32) return null
  for (const layer of router.stack) {
    let match: ReturnType<Layer['match']>
    try {
      match = layer.match(path)
    } catch {
      continue // Express skips a layer whose matcher throws (a bad %-encoding)
    }
    if (!match) continue
    if (layer.route) {
      if (layer.route._handlesMethod(method)) return prefix + patternText(match.pattern ?? layer.route.path)
      continue
    }
    if (!Array.isArray(layer.handle?.stack)) continue
    const rest = path.slice(match.path.length) || '/'
    const found = matchingPattern(
      layer.handle as Router,
      rest.startsWith('/') ? rest : `/${rest}`,
      method,
      prefix + (layer.slash ? '' : prefixText(match.pattern)),
      depth + 1,
    )
    if (found !== null) return found
  }
  return null
}

const mounted = new WeakMap<Route, string | null>()

const pathname = (url: string): string => {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

interface App {
  router?: Router
  mountpath?: unknown
  parent?: App
}

/** The mount patterns of a sub-app and the apps above it (`''` for the top app), or `undefined` when ambiguous. */
function appPrefix(app: App): string | undefined {
  let prefix = ''
  for (let a: App | undefined = app; a?.parent !== undefined; a = a.parent) {
    if (typeof a.mountpath !== 'string') return undefined
    prefix = prefixText(a.mountpath) + prefix
  }
  return prefix
}

/**
 * The request's route pattern: a string, `null` when no route matches (a 404), or `undefined` when it
 * cannot be known here (a route mounted at several paths inside a sub-app, say).
 */
export function routePattern(req: Request): string | null | undefined {
  const app = req.app as unknown as App | undefined
  const router = app?.router
  if (app === undefined || router === undefined || !Array.isArray(router.stack)) return undefined
  const prefix = appPrefix(app)
  if (prefix === undefined) return undefined
  const route = req.route as Route | undefined
  // Before routing, req.url is what this app's router will match (relative to a sub-app's mount).
  if (route === undefined) return matchingPattern(router, pathname(req.url), req.method, prefix, 0)
  let known = mounted.get(route)
  if (known === undefined) {
    const patterns: string[] = []
    mountedPatterns(router, route, prefix, patterns, 0)
    // Mounted once: fixed for good. Mounted at several paths: found per request, in a top-level app.
    known = patterns.length === 1 ? patterns[0]! : null
    mounted.set(route, known)
  }
  if (known !== null) return known
  if (app.parent !== undefined) return undefined
  return matchingPattern(router, pathname(req.originalUrl), req.method, '', 0) ?? undefined
}
