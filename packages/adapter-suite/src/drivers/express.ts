import { loadShedder, priorityQueue, rateLimit, slowDown } from '@floodgate/express'
import express from 'express'
import express4 from 'express4'
import type { AdapterApp, AdapterAppSetup, AdapterDriver } from '../types.js'
import { useGates } from './gates.js'
import { servedApp } from './served-app.js'
import { streamOf } from './stream.js'

/**
 * Builds apps on one Express major for the adapter conformance suite; requests go through real HTTP
 * (supertest). Both majors run the same setup: their API for it is the same.
 */
function expressDriverOf(name: string, framework: typeof express): AdapterDriver {
  return { name, framework: 'express', createApp: (setup) => createApp(framework, setup) }
}

/** Express 5 (`express`) and Express 4 (`express4`, installed beside it). */
export const expressDriver = expressDriverOf('express', express)
export const express4Driver = expressDriverOf('express4', express4)

function createApp(framework: typeof express, setup: AdapterAppSetup): AdapterApp {
  const app = framework()
  app.set('trust proxy', setup.trustProxy ?? false)
  if (setup.noAddress) {
    app.use((req, _res, next) => {
      Object.defineProperty(req, 'ip', { value: undefined })
      next()
    })
  }
  const limiter = setup.options ? rateLimit(setup.options) : undefined
  if (limiter) app.use(limiter)
  if (setup.unreadableRouter) app.use(unreadableRouter())
  const gates = useGates(setup.degradation, { priorityQueue, loadShedder, slowDown }, (m) => app.use(m))
  for (const route of setup.routes ?? [{ path: '/' }]) {
    const method = (route.method ?? 'GET').toLowerCase() as 'get' | 'post'
    const handlers: express.RequestHandler[] = []
    if (route.rateLimit) handlers.push(rateLimit(route.rateLimit))
    handlers.push(async (req, res) => {
      if (route.tokens !== undefined) res.setHeader('x-tokens', String(route.tokens))
      if (route.stream) {
        res.type('text/plain')
        streamOf(route.stream, () => req.rateLimit).pipe(res)
        return
      }
      await route.wait?.(req.headers)
      res.status(route.status ?? 200).json({ ok: true, slowDown: req.slowDown })
    })
    app[method](route.path, ...handlers)
  }
  const server = app.listen(0, '127.0.0.1')
  return servedApp(server, gates, limiter?.usage, limiter?.unban, limiter?.overrides)
}

/** A middleware that goes on, whose sub-router stack throws when read: Express never reads it, the lookup does. */
function unreadableRouter(): express.RequestHandler {
  const middleware: express.RequestHandler = (_req, _res, next) => next()
  Object.defineProperty(middleware, 'stack', {
    get() {
      throw new Error('a router the lookup cannot read')
    },
  })
  return middleware
}
