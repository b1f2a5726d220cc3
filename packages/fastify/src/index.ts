import {
  createRateLimitHandler,
  escapeKeyPart,
  MemoryStore,
  mergeRateLimitOptions,
  type Outcome,
  type RateLimitHandler,
  type RateLimitOptions,
} from '@floodgate/core'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'

export type { Outcome, RateLimitOptions } from '@floodgate/core'

/** Options of a route's own limit (`config.rateLimit`); functions get Fastify's `request`. */
export type RouteRateLimitOptions = RateLimitOptions<FastifyRequest>

/** The plugin's options: every core option, and `global`. */
export interface FastifyRateLimitOptions extends RouteRateLimitOptions {
  /**
   * Limit every route (`true`), or only the routes with a `config.rateLimit` of their own (`false`).
   * @default true
   */
  global?: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's own limit (over the plugin's options), or `false` for none. */
    rateLimit?: RouteRateLimitOptions | false
  }
  interface FastifyRequest {
    /** What `@floodgate/fastify` decided for this request, when it proceeds. */
    rateLimit: Outcome | null
  }
  interface FastifyInstance {
    /** An `onRequest` hook that checks a limit of its own (over the plugin's options), for manual use. */
    rateLimit(options?: RouteRateLimitOptions): onRequestHookHandler
  }
}

function onRequest(handler: RateLimitHandler<FastifyRequest>): onRequestHookHandler {
  return async function floodgate(request: FastifyRequest, reply: FastifyReply) {
    const outcome = await handler.handle(
      {
        ip: request.ip,
        method: request.method,
        route: request.routeOptions.url,
        path: request.url,
        headers: request.headers,
        native: request,
      },
      request.rateLimit ?? undefined,
    )
    reply.headers(outcome.headers)
    if (!outcome.allowed) return reply.code(outcome.status).type(outcome.contentType!).send(outcome.body)
    request.rateLimit = outcome
    if (handler.refunds && outcome.items) {
      const res = reply.raw
      res.once('close', () => handler.complete(outcome, res.writableEnded ? reply.statusCode : 0))
    }
  }
}

const plugin: FastifyPluginAsync<FastifyRateLimitOptions> = async (fastify, opts) => {
  const { global = true, ...options } = opts
  const base: RouteRateLimitOptions = { ...options, store: options.store ?? new MemoryStore() }
  const appHandler = createRateLimitHandler<FastifyRequest>(base) // validates now, even when not global
  const routeScope = base.prefix ? `${base.prefix}:` : ''

  if (!fastify.hasDecorator('rateLimit')) {
    fastify.decorate('rateLimit', (route: RouteRateLimitOptions = {}) =>
      onRequest(createRateLimitHandler(mergeRateLimitOptions(base, route))),
    )
  }
  if (!fastify.hasRequestDecorator('rateLimit')) fastify.decorateRequest('rateLimit', null)

  fastify.addHook('onRoute', (route) => {
    const config = (route.config as { rateLimit?: RouteRateLimitOptions | false } | undefined)?.rateLimit
    if (config === false || (!config && !global)) return
    // A route's own limit counts for that route alone, unless its config names a `prefix` to share.
    const methods = [route.method].flat().join(',')
    const handler = config
      ? createRateLimitHandler(
          mergeRateLimitOptions(base, {
            prefix: escapeKeyPart(`${routeScope}${methods} ${route.url}`),
            ...config,
          }),
        )
      : appHandler
    const hooks = route.onRequest
    route.onRequest = [
      onRequest(handler),
      ...(hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]),
    ]
  })
}

/**
 * Rate limiting for Fastify 5: `await app.register(rateLimit, { limit: 100, window: '1m' })`. Routes
 * registered after it are limited; a route's `config.rateLimit` sets its own limit, or `false` none. The
 * client address is Fastify's `request.ip`, so the `trustProxy` option decides it.
 *
 * @example await app.register(rateLimit, { limit: 100, window: '1m' })
 * @example app.get('/export', { config: { rateLimit: { limit: 5, window: '1m' } } }, handler)
 */
export const rateLimit = fp(plugin, { name: '@floodgate/fastify', fastify: '5.x' })
export default rateLimit
