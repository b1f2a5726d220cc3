import {
  MemoryStore,
  type Outcome,
  type Overrides,
  type RateLimitOptions,
  type RequestInfo,
  type RequestRateLimit,
  type Unban,
  type UsageReport,
} from '@floodgate/core'
import {
  createRateLimitHandler,
  encodeKeyPart,
  type LimiterControls,
  mergeRateLimitOptions,
  type ProxyTrust,
  type RateLimitHandler,
  routeRateLimitOptions,
  withControls,
} from '@floodgate/core/internal'
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
} from 'fastify'
import fp from 'fastify-plugin'
import { FastifyRequestInfo } from './request-info.js'

export type {
  Outcome,
  OverrideEntry,
  Overrides,
  RateLimitOptions,
  RequestRateLimit,
  RequestSlowDown,
  Unban,
  Usage,
  UsageReport,
} from '@floodgate/core'
export {
  type FastifyLoadShedderOptions,
  type FastifyPriorityQueueOptions,
  type FastifySlowDownOptions,
  loadShedder,
  priorityQueue,
  slowDown,
} from './gates.js'

/** Options of a route's own limit (`config.rateLimit`); functions get Fastify's `request`. */
export type RouteRateLimitOptions = RateLimitOptions<FastifyRequest>

/** The plugin's options: every core option, and `global`. */
export interface FastifyRateLimitOptions extends RouteRateLimitOptions {
  /**
   * Limit every route (`true`), or only the routes with a `config.rateLimit` of their own (`false`).
   * @default true
   * @example false
   */
  global?: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** This route's own limit (over the plugin's options), or `false` for none. */
    rateLimit?: RouteRateLimitOptions | false
  }
  interface FastifyRequest {
    /** What the app reads of the limit that let this request through: `limit`, `remaining`, `reset`, `policy`. */
    rateLimit: RequestRateLimit | null
  }
  interface FastifyInstance {
    /**
     * An `onRequest` hook that checks a limit of its own (over the plugin's options), for manual use: with its
     * `unban`, and its `overrides` to change its policies' overrides at runtime.
     */
    rateLimit(options?: RouteRateLimitOptions): RateLimitHook
    /** The usage report of the plugin's `plans` (`usage(apiKey)`, `resetUsage(apiKey)`), when it has plans. */
    rateLimitUsage: UsageReport | undefined
    /**
     * Lift a `ban` early, on every server sharing the store: in the plugin's app-wide limit and in every
     * route's own limit (`config.rateLimit`) that has a ban. `unban('203.0.113.7')`, `unban(userId, { policy })`.
     */
    unban: Unban
    /**
     * The overrides of the plugin's app-wide limit, to change at runtime (`set`, `delete`, `list`; see
     * docs/options.md#overrides). A route's own `config.rateLimit` has overrides of its own scope.
     */
    rateLimitOverrides: Overrides
  }
}

/**
 * The hook `app.rateLimit(options)` returns, with the limiter's controls: its plans' `usage` report, `unban` and
 * its policies' `overrides` to change at runtime.
 */
export type RateLimitHook = onRequestHookHandler & LimiterControls

/**
 * Fastify's `trustProxy` option, read from the instance (Fastify keeps it under a symbol; `undefined` when
 * it cannot be found): `false` trusts none; `true` all; a hop count none at all (Fastify 5 ignores it, as
 * hop counts cannot tell a proxy from a client); an address, a CIDR, a list or a function some.
 */
function trustProxyOption(fastify: FastifyInstance): { found: boolean; value: unknown } {
  for (let o: object | null = fastify; o !== null; o = Object.getPrototypeOf(o)) {
    const symbol = Object.getOwnPropertySymbols(o).find((s) => s.description === 'fastify.options')
    if (symbol)
      return { found: true, value: (o as Record<symbol, { trustProxy?: unknown }>)[symbol]?.trustProxy }
  }
  return { found: false, value: undefined }
}

const trustOf = (value: unknown): ProxyTrust =>
  value === true
    ? 'all'
    : value === undefined || value === false || typeof value === 'number'
      ? 'none'
      : 'some'

/** Write what the limiter decided: the headers, and the refusal when there is one. Whether the request goes on. */
function write(
  handler: RateLimitHandler<FastifyRequest>,
  outcome: Outcome,
  info: RequestInfo<FastifyRequest>,
  request: FastifyRequest,
  reply: FastifyReply,
): boolean {
  try {
    // Each header on its own: `reply.headers` lists the names in an array, then reads each value at a property
    // load every caller in the app shares; this loop reads one header object's shape.
    const headers = outcome.headers
    for (const name in headers) reply.header(name, headers[name]!)
    if (outcome.kind === 'answer') {
      reply.code(outcome.status).type(outcome.contentType).send(outcome.body)
      return false
    }
  } catch (error) {
    // A header or status Fastify refused: answer 500 and keep serving.
    const failed = handler.writeFailed(error, info)
    for (const name in outcome.headers) reply.removeHeader(name)
    reply.code(failed.status).headers(failed.headers).type(failed.contentType).send(failed.body)
    return false
  }
  request.rateLimit = outcome.rateLimit ?? null
  if (handler.refunds && (outcome.items || outcome.settlement)) completeOnClose(handler, outcome, reply)
  return true
}

/**
 * Tell the handler how the response ended, for its refunds and settled costs (`settle` gets the `reply`). A function of its own, as is `writeLater`: a
 * closure made in a function on every request's path would make each call of it allocate a context.
 */
function completeOnClose(
  handler: RateLimitHandler<FastifyRequest>,
  outcome: Outcome,
  reply: FastifyReply,
): void {
  const res = reply.raw
  res.once('close', () => handler.complete(outcome, res.writableEnded ? reply.statusCode : 0, reply))
}

function writeLater(
  handler: RateLimitHandler<FastifyRequest>,
  decided: Promise<Outcome>,
  info: RequestInfo<FastifyRequest>,
  request: FastifyRequest,
  reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  decided.then((outcome) => {
    if (write(handler, outcome, info, request, reply)) done()
  }, done)
}

/**
 * The hook that decides each request. `route` is the route's pattern when the hook is made for one route
 * (`onRoute`): read once, not from `request.routeOptions`, which Fastify builds anew on every read.
 */
function onRequest(
  handler: RateLimitHandler<FastifyRequest>,
  trust: ProxyTrust | undefined,
  route?: string,
): onRequestHookHandler {
  // A callback hook, not an async one: an outcome decided in this tick (the MemoryStore) calls `done` at
  // once, with no promise in between. A request answered here never calls `done` (Fastify's early reply).
  return function floodgate(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) {
    const info = new FastifyRequestInfo(request, route ?? request.routeOptions.url, trust)
    const decided = handler.handle(info, request.rateLimit ?? undefined)
    if (!(decided instanceof Promise)) {
      if (write(handler, decided, info, request, reply)) done()
      return
    }
    writeLater(handler, decided, info, request, reply, done)
  }
}

const plugin: FastifyPluginAsync<FastifyRateLimitOptions> = async (fastify, opts) => {
  const { global = true, ...options } = opts
  const base: RouteRateLimitOptions = { ...options, store: options.store ?? new MemoryStore() }
  const appHandler = createRateLimitHandler<FastifyRequest>(base) // validates now, even when not global
  const routeScope = base.prefix ? `${base.prefix}:` : ''
  const trustProxy = trustProxyOption(fastify)
  const trust = trustProxy.found ? trustOf(trustProxy.value) : undefined
  if (typeof trustProxy.value === 'number') {
    appHandler.warn(
      'hopCountTrustProxy',
      `Fastify({ trustProxy: ${trustProxy.value} }) trusts no proxy in Fastify 5 (a hop count cannot tell a proxy from a client), so request.ip is your proxy's address and every client behind it shares one bucket. Give the proxy's address or CIDR instead: Fastify({ trustProxy: '10.0.0.0/8' }).`,
    )
  }

  if (!fastify.hasDecorator('rateLimit')) {
    fastify.decorate('rateLimit', (route: RouteRateLimitOptions = {}): RateLimitHook => {
      const handler = createRateLimitHandler(mergeRateLimitOptions(base, route))
      return withControls(onRequest(handler, trust), handler)
    })
  }
  // The limits with a ban, the app-wide one first: the instance's `unban` lifts a ban in any of them.
  const banning: RateLimitHandler<FastifyRequest>[] = []
  const banned = (handler: RateLimitHandler<FastifyRequest>) => {
    if (handler.bans) banning.push(handler)
    return handler
  }
  if (global) banned(appHandler)
  if (!fastify.hasDecorator('unban')) {
    fastify.decorate('unban', (async (key, options) => {
      const lifted = await Promise.allSettled(
        (banning.length > 0 ? banning : [appHandler]).map((h) => h.unban(key, options)),
      )
      if (lifted.some((result) => result.status === 'fulfilled')) return
      throw (lifted[0] as PromiseRejectedResult).reason
    }) as Unban)
  }
  if (!fastify.hasRequestDecorator('rateLimit')) fastify.decorateRequest('rateLimit', null)
  if (!fastify.hasDecorator('rateLimitUsage')) fastify.decorate('rateLimitUsage', appHandler.usage)
  if (!fastify.hasDecorator('rateLimitOverrides'))
    fastify.decorate('rateLimitOverrides', appHandler.overrides)

  fastify.addHook('onRoute', (route) => {
    const config = (route.config as { rateLimit?: RouteRateLimitOptions | false } | undefined)?.rateLimit
    if (config === false || (!config && !global)) return
    // With tiers, a route's own limit is its innermost tier (tighter only, the outer tiers kept). Without,
    // it replaces the app's policy (as @fastify/rate-limit's route config does) and counts for that route
    // alone, unless its config names a `prefix` to share.
    // HEAD runs the GET handler (Fastify adds a HEAD route for every GET): both count in one bucket.
    const methods = [...new Set([route.method].flat().map((m) => (m === 'HEAD' ? 'GET' : m)))]
    const handler = !config
      ? appHandler
      : banned(
          base.tiers
            ? createRateLimitHandler(
                routeRateLimitOptions(
                  base,
                  config,
                  methods.map((m) => `${m} ${route.url}`),
                ),
              )
            : createRateLimitHandler(
                mergeRateLimitOptions(base, {
                  prefix: encodeKeyPart(`${routeScope}${methods.join(',')} ${route.url}`),
                  ...config,
                }),
              ),
        )
    const hooks = route.onRequest
    route.onRequest = [
      onRequest(handler, trust, route.url),
      ...(hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]),
    ]
  })
}

/**
 * Rate limiting for Fastify 5: `await app.register(rateLimit, { limit: 100, window: '1m' })`. Routes
 * registered after it are limited; a route's `config.rateLimit` sets its own limit, or `false` none. The
 * client address is Fastify's `request.ip`, so the `trustProxy` option decides it (an address or CIDR:
 * Fastify 5 ignores a hop count).
 *
 * @example await app.register(rateLimit, { limit: 100, window: '1m' })
 * @example app.get('/export', { config: { rateLimit: { limit: 5, window: '1m' } } }, handler)
 */
export const rateLimit = fp(plugin, { name: '@floodgate/fastify', fastify: '5.x' })
export default rateLimit
