import type { RequestSlowDown } from '@floodgate/core'
import {
  createLoadShedder,
  createPriorityQueue,
  createSlowDown,
  enterGate,
  type Gate,
  type LoadShedder,
  type LoadShedderOptions,
  type PriorityQueue,
  type PriorityQueueOptions,
  type SlowDown,
  type SlowDownOptions,
} from '@floodgate/core/internal'
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyPluginOptions,
  FastifyRequest,
  onRequestHookHandler,
} from 'fastify'
import fp from 'fastify-plugin'
import { FastifyRequestInfo } from './request-info.js'

/** The options of the Fastify priority queue: every core option; `priority` gets Fastify's `request`. */
export type FastifyPriorityQueueOptions = PriorityQueueOptions<FastifyRequest>

/** The options of the Fastify load shedder: every core option; `priority` gets Fastify's `request`. */
export type FastifyLoadShedderOptions = LoadShedderOptions<FastifyRequest>

/** The options of the Fastify slow-down: every core option; `key` and `delay` functions get Fastify's `request`. */
export type FastifySlowDownOptions = SlowDownOptions<FastifyRequest>

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * What the slow-down decided for this request: `limit` (its `after`), `used`, `remaining`, `reset`, `delay`;
     * `null` when no slow-down counted it.
     */
    slowDown: RequestSlowDown | null
  }
  interface FastifyInstance {
    /** The slow-down registered first on this instance: its \`stats()\`. */
    slowDown: SlowDown<FastifyRequest>
    /** The priority queue registered first on this instance: its \`stats()\`. */
    priorityQueue: PriorityQueue<FastifyRequest>
    /** The load shedder registered first on this instance: its \`stats()\`. */
    loadShedder: LoadShedder<FastifyRequest>
  }
}

/**
 * An `onRequest` hook around a core gate: the request proceeds or gets the gate's answer, written through
 * Fastify's reply (its `onSend` hooks see it). A request whose client went away before it was let in never
 * reaches the route.
 */
function gateHook(gate: Gate<FastifyRequest>): onRequestHookHandler {
  return async function floodgateGate(request, reply) {
    const info = new FastifyRequestInfo(request, request.routeOptions.url)
    const outcome = await enterGate(gate, info, reply.raw)
    if (outcome.kind === 'pass') return
    if (outcome.kind === 'gone') return reply.hijack()
    return reply.code(outcome.status).headers(outcome.headers).type(outcome.contentType).send(outcome.body)
  }
}

/** A plugin that puts `gate` before every route registered after it, and on the instance as `name`. */
function gatePlugin<O extends FastifyPluginOptions, G extends Gate<FastifyRequest>>(
  name: 'priorityQueue' | 'loadShedder',
  create: (options: O) => G,
): FastifyPluginAsync<O> {
  return async (fastify: FastifyInstance, options: O) => {
    const gate = create(options)
    // The decorator's type is the gate's own (`PriorityQueue` or `LoadShedder`), declared above.
    if (!fastify.hasDecorator(name)) fastify.decorate(name, gate as never)
    fastify.addHook('onRequest', gateHook(gate))
    fastify.addHook('onClose', async () => gate.close())
  }
}

/**
 * Serve at most `concurrency` requests at once; the others wait in the queue `priority` names, drained in
 * the order the queues are listed. A full queue answers 429, a request that waited `maxWait` 503, both with
 * `Retry-After`; a client that disconnects while waiting leaves its queue at once. Every route registered
 * after it goes through it.
 *
 * @example
 * await app.register(priorityQueue, {
 *   concurrency: 64,
 *   priority: (request) => (request.user?.plan === 'premium' ? 'premium' : 'standard'),
 *   queues: { premium: { capacity: 500 }, standard: { capacity: 100 } },
 *   maxWait: '10s',
 * })
 */
export const priorityQueue = fp(
  gatePlugin('priorityQueue', (options: FastifyPriorityQueueOptions) =>
    createPriorityQueue<FastifyRequest>(options),
  ),
  { name: '@floodgate/fastify/priority-queue', fastify: '5.x' },
)

/**
 * Shed the least important requests (503 with `Retry-After`) when the server is overloaded: past a class's
 * share of `maxInFlight`, or while the event loop's delay stays above `maxEventLoopDelay`. Every route
 * registered after it goes through it.
 *
 * @example
 * await app.register(loadShedder, {
 *   priority: (request) => (request.url.startsWith('/checkout') ? 'critical' : request.method === 'GET' ? 'normal' : 'sheddable'),
 *   maxInFlight: 256,
 *   maxEventLoopDelay: '100ms',
 *   reserve: { critical: 0.2 },
 * })
 */
export const loadShedder = fp(
  gatePlugin('loadShedder', (options: FastifyLoadShedderOptions) =>
    createLoadShedder<FastifyRequest>(options),
  ),
  { name: '@floodgate/fastify/load-shedder', fastify: '5.x' },
)

/**
 * An `onRequest` hook around the slow-down: the request goes on after its delay, with its headers and
 * `request.slowDown`; one whose client went away while it waited never reaches the route.
 */
function slowDownHook(slow: SlowDown<FastifyRequest>): onRequestHookHandler {
  return async function floodgateSlowDown(request, reply) {
    const entry = slow.enter(new FastifyRequestInfo(request, request.routeOptions.url))
    reply.raw.once('close', entry.leave)
    const outcome = await entry.outcome
    if (outcome.kind === 'gone') return reply.hijack()
    reply.headers(outcome.headers)
    request.slowDown = outcome.slowDown ?? null
  }
}

/**
 * Slow repeated requests down instead of refusing them: the first `after` requests of a client in a `window`
 * go at once; each later one waits `delay` more than the one before, never more than `maxDelay`. No request
 * is refused. `request.slowDown` says what happened; a client that disconnects while it waits stops waiting.
 * Every route registered after it, in the scope it is registered in, goes through it.
 *
 * @example
 * await app.register(async (scope) => {
 *   await scope.register(slowDown, { after: 5, delay: '500ms', maxDelay: '10s', window: '15m' })
 *   scope.post('/login', login)
 * })
 */
export const slowDown = fp(
  async (fastify: FastifyInstance, options: FastifySlowDownOptions) => {
    const slow = createSlowDown<FastifyRequest>(options)
    if (!fastify.hasDecorator('slowDown')) fastify.decorate('slowDown', slow)
    if (!fastify.hasRequestDecorator('slowDown')) fastify.decorateRequest('slowDown', null)
    fastify.addHook('onRequest', slowDownHook(slow))
    fastify.addHook('onClose', async () => slow.close())
  },
  { name: '@floodgate/fastify/slow-down', fastify: '5.x' },
)
