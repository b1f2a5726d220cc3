import {
  createLoadShedder,
  createPriorityQueue,
  enterGate,
  type Gate,
  type LoadShedder,
  type LoadShedderOptions,
  type PriorityQueue,
  type PriorityQueueOptions,
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

declare module 'fastify' {
  interface FastifyInstance {
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
