import type { IncomingHttpHeaders } from 'node:http'

/**
 * What the HTTP layer needs to know about a request, as an adapter maps it from its framework. Adapters
 * build one per request and never compute anything else: keys, headers and bodies are core's job.
 */
export interface RequestInfo<N = unknown> {
  /**
   * The client address as the framework decided it, honouring the framework's own trust-proxy setting
   * (Express `req.ip`, Fastify `request.ip`, Koa `ctx.ip`). `X-Forwarded-For` is never read by Floodgate.
   * `undefined` or `''` when unknown: such a request is never given a shared key.
   */
  ip: string | undefined
  /** The HTTP method, upper case. */
  method: string
  /**
   * The route pattern that matched (`/users/:id`), or `undefined` when the limiter runs before routing.
   * Never the raw path.
   */
  route: string | undefined
  /** The request target as received (path and query). Informative only: never part of a key. */
  path: string
  /** The request headers. */
  headers: IncomingHttpHeaders
  /** The framework's own request (Express `req`, Fastify `request`, Koa `ctx`): what option functions get. */
  native: N
}
