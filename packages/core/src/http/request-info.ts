import type { IncomingHttpHeaders } from 'node:http'
import { RateLimitRequestError } from './errors.js'

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
   * The route pattern that matches (`/users/:id`, with any router mount patterns before it), `null` when no
   * route matches (a 404), or `undefined` when it cannot be known here. Never the raw path.
   */
  route: string | null | undefined
  /** The request target as received (path and query). Informative only: never part of a key. */
  path: string
  /** The request headers. */
  headers: IncomingHttpHeaders
  /** The framework's own request (Express `req`, Fastify `request`, Koa `ctx`): what option functions get. */
  native: N
  /**
   * Which proxies the framework trusts for the client address, when the adapter knows: `'none'` (the
   * socket's address), `'all'` (any `X-Forwarded-For` entry a client sends), `'some'` (an address, a CIDR,
   * a hop count). Only used to warn about setups that merge or split clients.
   */
  proxyTrust?: ProxyTrust
}

/** Which proxies a framework trusts for the client address (see {@link RequestInfo.proxyTrust}). */
export type ProxyTrust = 'none' | 'all' | 'some'

/** What the limiter does with a request whose field could not be read, as its report says. */
const UNREADABLE = {
  route: (method: string) => `limited as one whose route is unknown ('${method} *')`,
  ip: () => 'refused as one whose client address is unknown (never a shared key)',
} as const

/**
 * The request as the limiter reads it: `info` itself when `field` (the route pattern, or the client address)
 * can be read, else a view of it where that field is unknown, with the failure reported as
 * `ERR_FLOODGATE_REQUEST_READ_FAILED`. An unknown route counts under `METHOD *` (one bucket per method, never
 * more than a request whose route is known gets); an unknown address is refused, never given a shared key.
 * An adapter reads both from the framework on first use (a router it cannot read, a trust-proxy function that
 * throws): such a failure is the request's, and must not pass for a store that cannot answer, which
 * `failMode` would let through.
 */
export function readableRequest<N>(
  info: RequestInfo<N>,
  field: 'route' | 'ip',
  report: (error: unknown, info: RequestInfo<N>) => void,
): RequestInfo<N> {
  try {
    void info[field]
    return info
  } catch (error) {
    return unreadable(info, field, error, report)
  }
}

/**
 * A view of `info` where `field` is unknown, its read having failed with `error` (reported as
 * `ERR_FLOODGATE_REQUEST_READ_FAILED`): see {@link readableRequest}.
 */
export function unreadable<N>(
  info: RequestInfo<N>,
  field: 'route' | 'ip',
  error: unknown,
  report: (error: unknown, info: RequestInfo<N>) => void,
): RequestInfo<N> {
  const reason = error instanceof Error ? error.message : String(error)
  const which = field === 'route' ? 'route' : 'client address'
  report(
    new RateLimitRequestError(
      'ERR_FLOODGATE_REQUEST_READ_FAILED',
      `Reading the ${which} of ${info.method} ${info.path} failed: ${reason}. The request is ${UNREADABLE[field](info.method)}.`,
      { cause: error },
    ),
    info,
  )
  return Object.create(info, { [field]: { value: undefined } }) as RequestInfo<N>
}
