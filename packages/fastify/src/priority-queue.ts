import { createPriorityQueue, type PriorityQueue, type PriorityQueueOptions } from '@floodgate/core'
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { gateHook } from './gate.js'

/** The options of the Fastify priority queue: every core option; `priority` gets Fastify's `request`. */
export type FastifyPriorityQueueOptions = PriorityQueueOptions<FastifyRequest>

declare module 'fastify' {
  interface FastifyInstance {
    /** The priority queue registered first on this instance: its \`stats()\`. */
    priorityQueue: PriorityQueue<FastifyRequest>
  }
}

const plugin: FastifyPluginAsync<FastifyPriorityQueueOptions> = async (fastify, options) => {
  const queue = createPriorityQueue<FastifyRequest>(options)
  if (!fastify.hasDecorator('priorityQueue')) fastify.decorate('priorityQueue', queue)
  fastify.addHook('onRequest', gateHook(queue))
  fastify.addHook('onClose', async () => queue.close())
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
export const priorityQueue = fp(plugin, { name: '@floodgate/fastify/priority-queue', fastify: '5.x' })
