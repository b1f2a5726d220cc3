import type { RequestInfo } from '@floodgate/core'
import type { ProxyTrust } from '@floodgate/core/internal'
import type { Context } from 'koa'
import { type MatchingRouter, routePattern } from './route-pattern.js'

/** Koa's proxy settings, as core reads them: `app.proxy` off trusts none; on, with no `maxIpsCount`, all. */
function proxyTrust(ctx: Context): ProxyTrust {
  const app = ctx.app as { proxy?: boolean; maxIpsCount?: number }
  return app.proxy !== true ? 'none' : (app.maxIpsCount ?? 0) > 0 ? 'some' : 'all'
}

/**
 * A Koa request as core sees it, for the limiter and the gates alike; the route pattern is found only when
 * something reads it (from the `router` option's routers before routing).
 */
export class KoaRequestInfo implements RequestInfo<Context> {
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
