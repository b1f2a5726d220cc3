import { loadShedder, priorityQueue, rateLimit, slowDown } from '@floodgate/fastify'
import Fastify from 'fastify'
import type { AdapterApp, AdapterAppSetup, AdapterDriver } from '../types.js'
import { streamOf } from './stream.js'

/** Builds Fastify apps for the adapter conformance suite; requests go through `fastify.inject`. */
export const fastifyDriver: AdapterDriver = {
  name: 'fastify',
  framework: 'fastify',
  async createApp(setup: AdapterAppSetup): Promise<AdapterApp> {
    const trustProxy = setup.trustProxy === 'loopback' ? '127.0.0.1' : (setup.trustProxy ?? false)
    const app = Fastify({ trustProxy })
    if (setup.noAddress) {
      app.addHook('onRequest', async (request) => {
        Object.defineProperty(request, 'ip', { value: undefined })
      })
    }
    await app.register(rateLimit, setup.options ?? { global: false })
    const { degradation } = setup
    if (degradation?.priorityQueue) await app.register(priorityQueue, degradation.priorityQueue as never)
    if (degradation?.loadShedder) await app.register(loadShedder, degradation.loadShedder as never)
    if (degradation?.slowDown) await app.register(slowDown, degradation.slowDown as never)
    for (const route of setup.routes ?? [{ path: '/' }]) {
      app.route({
        method: route.method ?? 'GET',
        url: route.path,
        config: route.rateLimit ? { rateLimit: route.rateLimit } : setup.options ? {} : { rateLimit: false },
        handler: async (request, reply) => {
          if (route.tokens !== undefined) reply.header('x-tokens', String(route.tokens))
          if (route.stream) {
            return reply.type('text/plain').send(streamOf(route.stream, () => request.rateLimit))
          }
          await route.wait?.(request.headers)
          return reply.code(route.status ?? 200).send({ ok: true, slowDown: request.slowDown ?? undefined })
        },
      })
    }
    await app.ready()
    let listening: Promise<string> | undefined
    return {
      async request({ method = 'GET', path, headers = {} }) {
        const res = await app.inject({
          method: method as 'GET',
          url: path,
          headers,
          remoteAddress: '127.0.0.1',
        })
        const type = String(res.headers['content-type'] ?? '')
        return {
          status: res.statusCode,
          headers: res.headers as Record<string, string>,
          body: type.includes('json') ? res.json() : res.body,
        }
      },
      listen: () => {
        listening ??= app.listen({ port: 0, host: '127.0.0.1' })
        return listening
      },
      close: () => app.close(),
      gates: {
        priorityQueue: degradation?.priorityQueue ? app.priorityQueue : undefined,
        loadShedder: degradation?.loadShedder ? app.loadShedder : undefined,
        slowDown: degradation?.slowDown ? app.slowDown : undefined,
      },
      usage: app.rateLimitUsage,
      overrides: setup.options ? app.rateLimitOverrides : undefined,
      unban: app.unban,
    }
  },
}
