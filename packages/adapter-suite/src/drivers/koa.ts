import { loadShedder, priorityQueue, rateLimit, slowDown } from '@floodgate/koa'
import Router from '@koa/router'
import Koa from 'koa'
import Koa2 from 'koa2'
import type { AdapterApp, AdapterAppSetup, AdapterDriver } from '../types.js'
import { useGates } from './gates.js'
import { servedApp } from './served-app.js'
import { streamOf } from './stream.js'

/**
 * Builds apps on one Koa major (routes on @koa/router, which supports both) for the adapter conformance suite;
 * requests through supertest.
 */
function koaDriverOf(name: string, framework: typeof Koa): AdapterDriver {
  return { name, framework: 'koa', createApp: (setup) => createApp(framework, setup) }
}

/** Koa 3 (`koa`) and Koa 2 (`koa2`, installed beside it). */
export const koaDriver = koaDriverOf('koa', Koa)
export const koa2Driver = koaDriverOf('koa2', Koa2)

function createApp(Framework: typeof Koa, setup: AdapterAppSetup): AdapterApp {
  const app = new Framework()
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
  const limiter = setup.options
    ? rateLimit(setup.routerOption ? { ...setup.options, router } : setup.options)
    : undefined
  if (limiter) app.use(limiter)
  if (setup.unreadableRouter) app.use(unreadableRouter())
  const gates = useGates(setup.degradation, { priorityQueue, loadShedder, slowDown }, (m) => app.use(m))
  for (const route of setup.routes ?? [{ path: '/' }]) {
    const method = (route.method ?? 'GET').toLowerCase() as 'get' | 'post'
    const respond = async (ctx: Koa.Context) => {
      if (route.tokens !== undefined) ctx.set('x-tokens', String(route.tokens))
      if (route.stream) {
        ctx.type = 'text/plain'
        ctx.body = streamOf(route.stream, () => ctx.state.rateLimit)
        return
      }
      await route.wait?.(ctx.headers)
      ctx.status = route.status ?? 200
      ctx.body = { ok: true, slowDown: ctx.state.slowDown }
    }
    if (route.rateLimit) router[method](route.path, rateLimit(route.rateLimit), respond)
    else router[method](route.path, respond)
  }
  app.use(router.routes())
  const server = app.listen(0, '127.0.0.1')
  return servedApp(server, gates, limiter?.usage, limiter?.unban, limiter?.overrides)
}

/** A middleware that goes on, marked as a router's (as @koa/router marks its own) whose `match` throws. */
function unreadableRouter(): Koa.Middleware {
  const middleware: Koa.Middleware = (_ctx, next) => next()
  return Object.assign(middleware, {
    router: {
      match() {
        throw new Error('a router the lookup cannot read')
      },
    },
  })
}
