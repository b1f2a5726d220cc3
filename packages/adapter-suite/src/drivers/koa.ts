import type { AddressInfo } from 'node:net'
import { loadShedder, priorityQueue, rateLimit } from '@floodgate/koa'
import Router from '@koa/router'
import Koa from 'koa'
import request from 'supertest'
import type { AdapterApp, AdapterAppSetup, AdapterDriver, AppGates } from '../types.js'

/** Builds Koa apps (routes on @koa/router) for the adapter conformance suite; requests through supertest. */
export const koaDriver: AdapterDriver = {
  name: 'koa',
  createApp(setup: AdapterAppSetup): AdapterApp {
    const app = new Koa()
    app.proxy = setup.trustProxy !== undefined && setup.trustProxy !== false
    // Behind one trusted proxy, the client is the entry that proxy appended: the last one.
    if (setup.trustProxy === 'loopback') app.maxIpsCount = 1
    if (setup.noAddress) {
      app.use((ctx, next) => {
        Object.defineProperty(ctx.request, 'ip', { value: '' })
        return next()
      })
    }
    const router = new Router()
    if (setup.options) app.use(rateLimit(setup.routerOption ? { ...setup.options, router } : setup.options))
    const gates: AppGates = {}
    const { degradation } = setup
    if (degradation?.priorityQueue) {
      const middleware = priorityQueue(degradation.priorityQueue as never)
      gates.priorityQueue = middleware.queue
      app.use(middleware)
    }
    if (degradation?.loadShedder) {
      const middleware = loadShedder(degradation.loadShedder as never)
      gates.loadShedder = middleware.shedder
      app.use(middleware)
    }
    for (const route of setup.routes ?? [{ path: '/' }]) {
      const method = (route.method ?? 'GET').toLowerCase() as 'get' | 'post'
      const respond = async (ctx: Koa.Context) => {
        await route.wait?.(ctx.headers)
        ctx.status = route.status ?? 200
        ctx.body = { ok: true }
      }
      if (route.rateLimit) router[method](route.path, rateLimit(route.rateLimit), respond)
      else router[method](route.path, respond)
    }
    app.use(router.routes())
    const server = app.listen(0, '127.0.0.1')
    return {
      async request({ method = 'GET', path, headers = {} }) {
        const res = await request(server)[method.toLowerCase() as 'get'](path).set(headers)
        return { status: res.status, headers: res.headers as Record<string, string>, body: res.body }
      },
      listen: async () => {
        if (!server.listening) await new Promise((resolve) => server.once('listening', resolve))
        return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      },
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
      gates,
    }
  },
}
