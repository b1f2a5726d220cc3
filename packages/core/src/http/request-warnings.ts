import type { RequestInfo } from './request-info.js'
import type { Warnings } from './warnings.js'

/** Checks each request for the misconfigurations it reveals, until each has been raised (or turned off). */
export interface RequestWarnings {
  check(info: RequestInfo, needsRoute: boolean): void
}

/** Compile the per-request misconfiguration checks: a flag test per request once they are all raised. */
export function compileRequestWarnings(warnings: Warnings): RequestWarnings {
  let proxyChecks = true
  let endpointCheck = true
  return {
    check(info, needsRoute) {
      if (proxyChecks) {
        const trust = info.proxyTrust
        if (
          trust === 'none' &&
          info.headers['x-forwarded-for'] !== undefined &&
          warnings.pending('forwardedHeader')
        ) {
          warnings.warn(
            'forwardedHeader',
            "A request arrived with X-Forwarded-For, but the framework trusts no proxy, so the client address is the proxy's and every client behind it shares one bucket. Trust your proxy's address or CIDR (Express: app.set('trust proxy', '10.0.0.0/8'); Fastify: Fastify({ trustProxy: '10.0.0.0/8' }); Koa: app.proxy = true and app.maxIpsCount = 1), or turn this warning off with warnings: { forwardedHeader: false } when no proxy is in front.",
          )
        }
        if (trust === 'all' && warnings.pending('permissiveTrustProxy')) {
          warnings.warn(
            'permissiveTrustProxy',
            "The framework trusts every proxy, so any client picks its own address, and its own bucket, by sending X-Forwarded-For. Trust only your proxy's address or CIDR (Express: app.set('trust proxy', '10.0.0.0/8'); Fastify: trustProxy: '10.0.0.0/8'; Koa: app.maxIpsCount = 1).",
          )
        }
        proxyChecks = warnings.pending('forwardedHeader') || warnings.pending('permissiveTrustProxy')
      }
      if (endpointCheck && needsRoute && info.route === undefined) {
        if (warnings.pending('unknownEndpoint')) {
          warnings.warn(
            'unknownEndpoint',
            `An 'endpoint' key is used where the route pattern cannot be known (${info.method} ${info.path}, before routing or on a router the limiter cannot see), so those requests share one bucket per method ('${info.method} *'). Mount the limiter on the route or router (Koa at app level, with a router the app does not hold as @koa/router middleware: pass it as the \`router\` option).`,
          )
        }
        endpointCheck = warnings.pending('unknownEndpoint')
      }
    },
  }
}
