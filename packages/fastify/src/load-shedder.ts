import { createLoadShedder, type LoadShedder, type LoadShedderOptions } from '@floodgate/core'
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { gateHook } from './gate.js'

/** The options of the Fastify load shedder: every core option; `priority` gets Fastify's `request`. */
export type FastifyLoadShedderOptions = LoadShedderOptions<FastifyRequest>

declare module 'fastify' {
  interface FastifyInstance {
    /** The load shedder registered first on this instance: its \`stats()\`. */
    loadShedder: LoadShedder<FastifyRequest>
  }
}

const plugin: FastifyPluginAsync<FastifyLoadShedderOptions> = async (fastify, options) => {
  const shedder = createLoadShedder<FastifyRequest>(options)
  if (!fastify.hasDecorator('loadShedder')) fastify.decorate('loadShedder', shedder)
  fastify.addHook('onRequest', gateHook(shedder))
  fastify.addHook('onClose', async () => shedder.close())
}

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
export const loadShedder = fp(plugin, { name: '@floodgate/fastify/load-shedder', fastify: '5.x' })
