import type { AddressInfo } from 'node:net'
import { loadShedder, priorityQueue, rateLimit } from '@floodgate/express'
import express from 'express'
import request from 'supertest'
import type { AdapterApp, AdapterAppSetup, AdapterDriver, AppGates } from '../types.js'

/** Builds Express apps for the adapter conformance suite; requests go through real HTTP (supertest). */
export const expressDriver: AdapterDriver = {
  name: 'express',
  createApp(setup: AdapterAppSetup): AdapterApp {
    const app = express()
    app.set('trust proxy', setup.trustProxy ?? false)
    if (setup.noAddress) {
      app.use((req, _res, next) => {
        Object.defineProperty(req, 'ip', { value: undefined })
        next()
      })
    }
    if (setup.options) app.use(rateLimit(setup.options))
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
      const handlers: express.RequestHandler[] = []
      if (route.rateLimit) handlers.push(rateLimit(route.rateLimit))
      handlers.push(async (req, res) => {
        await route.wait?.(req.headers)
        res.status(route.status ?? 200).json({ ok: true })
      })
      app[method](route.path, ...handlers)
    }
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
