import type { RequestInfo } from '@floodgate/core'
import type { ProxyTrust } from '@floodgate/core/internal'
import type { Request } from 'express'
import { routePattern } from './route-pattern.js'

/** Express's `trust proxy` setting, as core reads it: `false` trusts none, `true` all, anything else some. */
function proxyTrust(req: Request): ProxyTrust {
  const setting = (req.app?.settings as Record<string, unknown> | undefined)?.['trust proxy']
  return setting === true
    ? 'all'
    : setting === false || setting === undefined || setting === 0
      ? 'none'
      : 'some'
}

/**
 * An Express request as core sees it, for the limiter and the gates alike; the route pattern is found only
 * when something reads it.
 */
export class ExpressRequestInfo implements RequestInfo<Request> {
  readonly method: string
  readonly path: string
  readonly headers: Request['headers']
  readonly proxyTrust: ProxyTrust
  private pattern: string | null | undefined
  private found = false
  private address: string | undefined
  private addressRead = false

  constructor(readonly native: Request) {
    this.method = native.method
    this.path = native.originalUrl
    this.headers = native.headers
    this.proxyTrust = proxyTrust(native)
  }

  /** `req.ip`, read on first use: Express computes it with the app's `trust proxy` setting, which may throw. */
  get ip(): string | undefined {
    if (!this.addressRead) {
      this.address = this.native.ip
      this.addressRead = true
    }
    return this.address
  }

  get route(): string | null | undefined {
    if (!this.found) {
      this.pattern = routePattern(this.native)
      this.found = true
    }
    return this.pattern
  }
}
