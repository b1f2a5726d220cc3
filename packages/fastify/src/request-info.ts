import type { RequestInfo } from '@floodgate/core'
import type { ProxyTrust } from '@floodgate/core/internal'
import type { FastifyRequest } from 'fastify'

/**
 * A Fastify request as core sees it, for the limiter and the gates alike. The route pattern is Fastify's own
 * (found at registration, or `request.routeOptions.url`); the client address is read on first use, since
 * Fastify computes `request.ip` with the app's `trustProxy` setting, which may be a function that throws.
 */
export class FastifyRequestInfo implements RequestInfo<FastifyRequest> {
  readonly method: string
  readonly path: string
  readonly headers: FastifyRequest['headers']
  private address: string | undefined
  private addressRead = false

  constructor(
    readonly native: FastifyRequest,
    readonly route: string | undefined,
    readonly proxyTrust?: ProxyTrust,
  ) {
    this.method = native.method
    this.path = native.url
    this.headers = native.headers
  }

  get ip(): string | undefined {
    if (!this.addressRead) {
      this.address = this.native.ip
      this.addressRead = true
    }
    return this.address
  }
}
