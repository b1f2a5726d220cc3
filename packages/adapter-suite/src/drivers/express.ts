import { loadShedder, priorityQueue, rateLimit } from '@floodgate/express'
import express from 'express'
import type { AdapterApp, AdapterAppSetup, AdapterDriver } from '../types.js'
import { useGates } from './gates.js'
import { servedApp } from './served-app.js'

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
    const limiter = setup.options ? rateLimit(setup.options) : undefined
    if (limiter) app.use(limiter)
    const gates = useGates(setup.degradation, { priorityQueue, loadShedder }, (m) => app.use(m))
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
    return servedApp(server, gates, limiter?.usage)
  },
}
