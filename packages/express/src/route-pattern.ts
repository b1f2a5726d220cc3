import type { Request } from 'express'
import parseurl from 'parseurl'

/**
 * The route pattern of a request, with the patterns of the routers it is mounted under
 * (`/orgs/:org/posts/:postId`), read from Express's router: never the raw path, so ids never reach a key.
 *
 * Inside a route (`app.get('/x', rateLimit(), ...)`, `router.use(rateLimit())` within a route), the route is
 * `req.route`; its mount patterns are found once by walking the app's router tree, and cached per route.
 * Before routing (`app.use(rateLimit())`), the route that will match is found the way Express will find it:
 * the path Express routes on (the request target's path, absolute-form included), each layer's own matcher,
 * in order, with its method.
 *
 * Express 4 and 5 differ in how their routers are built (Express 4's own router, `app._router`, whose layers
 * keep a `regexp` and its `keys`; Express 5's `router` package, `app.router`, whose layers keep their `rawPath`
 * and match with `match()`): each is read through its {@link RouterShape}, chosen once per request by the
 * app's router.
 */

/** A layer of either router, as this reads it. */
interface Layer {
  route?: Route
  handle: { stack?: Layer[] }
  // Express 5 (the router package)
  rawPath?: unknown
  slash?: boolean
  match?(path: string): { path: string; pattern?: unknown } | false
  // Express 4
  regexp?: RegExp & { fast_slash?: boolean; fast_star?: boolean }
  keys?: { name: string | number }[]
}
interface Route {
  path: unknown
  _handlesMethod?(method: string): boolean
  _handles_method?(method: string): boolean
}
interface Router {
  stack: Layer[]
}

/** What a layer matched of a path: the text it consumed, and the pattern it matched with. */
interface Matched {
  path: string
  pattern: unknown
}

/** A layer whose matcher failed (a bad %-encoding in a parameter): Express then routes the request nowhere. */
const UNROUTABLE = Symbol('unroutable')

/** How one Express major's router is read. */
interface RouterShape {
  /** What `layer` matches of `path`, `false` when nothing, {@link UNROUTABLE} when its matcher failed. */
  match(layer: Layer, path: string): Matched | false | typeof UNROUTABLE
  /** The patterns a layer is mounted at (several for an array of paths). */
  paths(layer: Layer): readonly unknown[]
  /** Whether the layer is mounted at `/`, matching every path and consuming none of it. */
  slash(layer: Layer): boolean
  handlesMethod(route: Route, method: string): boolean
}

const patternText = (pattern: unknown): string => (typeof pattern === 'string' ? pattern : String(pattern))
/** A mount prefix as it joins a path: `/` (or a router mounted without a path) adds nothing. */
const prefixText = (pattern: unknown): string => {
  const text = patternText(pattern)
  return text === '/' ? '' : text.endsWith('/') ? text.slice(0, -1) : text
}

/** Express 5: the router package's layers match with `match()` and keep the path they were given. */
const express5: RouterShape = {
  match(layer, path) {
    try {
      const match = layer.match!(path)
      return match && { path: match.path, pattern: match.pattern ?? layer.route?.path }
    } catch {
      return UNROUTABLE
    }
  },
  paths: (layer) => (Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath]),
  slash: (layer) => layer.slash === true,
  handlesMethod: (route, method) => route._handlesMethod!(method),
}

/** Express 4's mount paths, read back from their regular expressions once per layer. */
const mountPaths = new WeakMap<Layer, string>()

/**
 * The path an Express 4 router was mounted at (`/orgs/:org`), read back from the regular expression that
 * path-to-regexp 0.1 made of it, the only form Express 4 keeps: escapes undone, each capturing group named by
 * its key (`:org`; an unnamed one, `*`), the optional trailing slash and the end-of-segment lookahead dropped.
 */
function express4MountPath(layer: Layer): string {
  const known = mountPaths.get(layer)
  if (known !== undefined) return known
  const source = layer
    .regexp!.source.replace(/^\^/, '')
    .replace(/\(\?=\\\/\|\$\)$/, '')
    .replace(/\\\/\?$/, '')
  const keys = layer.keys ?? []
  let text = ''
  let key = 0
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!
    if (c === '\\') {
      text += source[++i] ?? ''
      continue
    }
    if (c !== '(') {
      text += c
      continue
    }
    // A group, up to its closing parenthesis: a parameter's `(?:\/([^\/]+?))`, or a `*`'s `(.*)`.
    let end = i
    for (let depth = 0; end < source.length; end++) {
      if (source[end] === '\\') end++
      else if (source[end] === '(') depth++
      else if (source[end] === ')' && --depth === 0) break
    }
    const group = source.slice(i, end + 1)
    text += (/^\(\?:((?:\\[./])*)/.exec(group)?.[1] ?? '').replace(/\\/g, '')
    for (const capture of group.matchAll(/\\.|\((?!\?)/g)) {
      if (capture[0] !== '(') continue
      const name = keys[key++]?.name
      text += typeof name === 'string' ? `:${name}` : '*'
    }
    if (source[end + 1] === '?') {
      text += '?'
      end++
    }
    i = end
  }
  mountPaths.set(layer, text)
  return text
}

/** Express 4: its own router's layers keep a `regexp` (with `fast_slash`, `fast_star`) and its `keys`. */
const express4: RouterShape = {
  match(layer, path) {
    const regexp = layer.regexp!
    if (regexp.fast_slash) return { path: '', pattern: '/' }
    const match = regexp.fast_star ? [path, path] : regexp.exec(path)
    if (!match) return false
    // Express 4 decodes every parameter, and routes nowhere once one fails to decode.
    for (let i = 1; i < match.length; i++) {
      try {
        if (match[i]) decodeURIComponent(match[i]!)
      } catch {
        return UNROUTABLE
      }
    }
    return { path: match[0]!, pattern: layer.route ? layer.route.path : express4MountPath(layer) }
  },
  paths: (layer) => {
    const path = layer.route ? layer.route.path : express4MountPath(layer)
    return Array.isArray(path) ? path : [path]
  },
  slash: (layer) => layer.regexp!.fast_slash === true,
  handlesMethod: (route, method) => route._handles_method!(method),
}

/** Every full pattern under which `target` is mounted in `router` (one, usually). */
function mountedPatterns(
  shape: RouterShape,
  router: Router,
  target: Route,
  prefix: string,
  out: string[],
  depth: number,
): void {
  if (depth > 32) return
  for (const layer of router.stack) {
    if (layer.route === target) {
      for (const path of shape.paths(layer)) out.push(prefix + patternText(path))
    } else if (!layer.route && Array.isArray(layer.handle?.stack)) {
      const slash = shape.slash(layer)
      for (const path of shape.paths(layer)) {
        const inner = prefix + (slash ? '' : prefixText(path))
        mountedPatterns(shape, layer.handle as Router, target, inner, out, depth + 1)
      }
    }
  }
}

/** The pattern of the route that matches `path` and `method` in `router`, walking as Express dispatches. */
function matchingPattern(
  shape: RouterShape,
  router: Router,
  path: string,
  method: string,
  prefix: string,
  depth: number,
): string | null | typeof UNROUTABLE {
  if (depth > 32) return null
  for (const layer of router.stack) {
    const match = shape.match(layer, path)
    if (match === UNROUTABLE) return UNROUTABLE
    if (!match) continue
    if (layer.route) {
      if (shape.handlesMethod(layer.route, method)) return prefix + patternText(match.pattern)
      continue
    }
    if (!Array.isArray(layer.handle?.stack)) continue
    const rest = path.slice(match.path.length) || '/'
    const found = matchingPattern(
      shape,
      layer.handle as Router,
      rest.startsWith('/') ? rest : `/${rest}`,
      method,
      prefix + (shape.slash(layer) ? '' : prefixText(match.pattern)),
      depth + 1,
    )
    if (found !== null) return found
  }
  return null
}

/** The pattern of the route that will handle a request to `path`, `null` when none will. */
function routeFor(shape: RouterShape, router: Router, path: string | null | undefined, method: string) {
  if (typeof path !== 'string') return null
  const found = matchingPattern(shape, router, path, method, '', 0)
  return found === UNROUTABLE ? null : found
}

const mounted = new WeakMap<Route, string | null>()

interface App {
  /** Express 4's router (its `app.router` is a getter that throws). */
  _router?: Router
  /** Express 5's router. */
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
  if (app === undefined) return undefined
  // Express 4 builds `_router` with the app's first middleware or route; Express 5 has `router` from the start.
  const v4 = app._router
  const router = v4 ?? app.router
  if (router === undefined || !Array.isArray(router.stack)) return undefined
  const shape = v4 === undefined ? express5 : express4
  const prefix = appPrefix(app)
  if (prefix === undefined) return undefined
  const route = req.route as Route | undefined
  // Before routing, the path of req.url is what this app's router will match (relative to a sub-app's mount).
  if (route === undefined) {
    const found = routeFor(shape, router, parseurl(req)?.pathname, req.method)
    return found === null ? null : prefix + found
  }
  let known = mounted.get(route)
  if (known === undefined) {
    const patterns: string[] = []
    mountedPatterns(shape, router, route, prefix, patterns, 0)
    // Mounted once: fixed for good. Mounted at several paths: found per request, in a top-level app.
    known = patterns.length === 1 ? patterns[0]! : null
    mounted.set(route, known)
  }
  if (known !== null) return known
  if (app.parent !== undefined) return undefined
  return routeFor(shape, router, parseurl.original(req)?.pathname, req.method) ?? undefined
}
