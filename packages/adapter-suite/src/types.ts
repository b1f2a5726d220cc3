import type { IncomingHttpHeaders } from 'node:http'
import type { Overrides, Unban, UsageReport } from '@floodgate/core'
import type { LoadShedder, PriorityQueue, SlowDown } from '@floodgate/core/internal'

/**
 * One route of a test app. Every route answers `{ ok: true }` with `status` (200 by default), and
 * `slowDown`: what the app reads of a slow-down (`req.slowDown`, `request.slowDown`, `ctx.state.slowDown`)
 * when one counted the request.
 */
export interface AdapterRoute {
  /** @default 'GET' */
  method?: 'GET' | 'POST'
  /** A path or a pattern (`/users/:id`). */
  path: string
  /** @default 200 */
  status?: number
  /** Options of a limiter on this route alone (Express route middleware, Fastify `config.rateLimit`, Koa router middleware). */
  rateLimit?: Record<string, unknown>
  /** The route answers once this settles (given the request's headers): tests hold requests in flight. */
  wait?: (headers: IncomingHttpHeaders) => Promise<unknown>
  /** Settled costs: the response carries `X-Tokens: <tokens>`, for a `settle` function to read from the response. */
  tokens?: number
  /**
   * Settled costs: the route streams these chunks as text, then settles the request's cost itself with what the
   * app reads of its limit (`req.rateLimit.settle(settle)`, `request.rateLimit`, `ctx.state.rateLimit`).
   */
  stream?: { chunks: readonly string[]; settle?: number }
}

/** The degradation middlewares of a test app, app-wide, after the app-wide limiter and before the routes. */
export interface DegradationSetup {
  /** Options of `priorityQueue()`. */
  priorityQueue?: Record<string, unknown>
  /** Options of `loadShedder()`. */
  loadShedder?: Record<string, unknown>
  /** Options of `slowDown()`, after the load shedder. */
  slowDown?: Record<string, unknown>
}

/** The degradation middlewares an app was built with, to look at their queues and load. */
export interface AppGates {
  priorityQueue?: PriorityQueue
  loadShedder?: LoadShedder
  slowDown?: SlowDown
}

/** How the driver builds an app. */
export interface AdapterAppSetup {
  /** Options of an app-wide limiter (`app.use`, `app.register`); none when `undefined`. */
  options?: Record<string, unknown>
  /** @default [{ path: '/' }] */
  routes?: AdapterRoute[]
  /**
   * The framework's own trust-proxy setting: `false` (the socket address), `true` (the leftmost
   * `X-Forwarded-For` entry), `'loopback'` (the entry the loopback proxy appended: the rightmost), or a
   * function of an address and its hop (Express and Fastify; Koa reads any function as `true`).
   * @default false
   */
  trustProxy?: boolean | 'loopback' | ((address: string, hop: number) => boolean)
  /** Make the framework's client address unknown (empty), as for a socket that is already gone. */
  noAddress?: boolean
  /** Degradation middlewares (priority queue, load shedder) before the routes. */
  degradation?: DegradationSetup
  /**
   * Express and Koa: put a router the adapter's route lookup cannot read before the routes (a middleware whose
   * router throws when read), as Express 4's `app.router` did. Fastify gives the route itself: no lookup.
   */
  unreadableRouter?: boolean
  /** Koa: give the app-wide limiter the app's router (its `router` option), so it knows the routes. */
  routerOption?: boolean
}

export interface AdapterRequest {
  /** @default 'GET' */
  method?: string
  path: string
  headers?: Record<string, string>
}

export interface AdapterResponse {
  status: number
  /** Header names in lower case. */
  headers: Record<string, string | undefined>
  /** Parsed JSON when the response is JSON, else the text. */
  body: any
}

export interface AdapterApp {
  request(request: AdapterRequest): Promise<AdapterResponse>
  /** The app listening on 127.0.0.1, for tests that need real sockets (keep-alive): its base URL. */
  listen(): Promise<string>
  close(): Promise<void>
  /** The degradation middlewares, when the setup asked for them. */
  gates: AppGates
  /** The usage report of the app-wide limiter, when it has `plans` (each adapter's own way of giving it). */
  usage: UsageReport | undefined
  /** The app-wide limiter's `unban` (the middleware's; on Fastify the instance's), when it has one. */
  unban: Unban | undefined
  /** The runtime overrides of the app-wide limiter (each adapter's own way of giving them), when it has one. */
  overrides?: Overrides | undefined
}

/** What the suite needs from an adapter: build an app, send it requests (supertest, `fastify.inject`, ...). */
export interface AdapterDriver {
  /** The framework, and its major where it is an older one: `express`, `express4`, `fastify`, `koa`, `koa2`. */
  name: string
  /** The framework, whatever its major. */
  framework: 'express' | 'fastify' | 'koa'
  createApp(setup: AdapterAppSetup): AdapterApp | Promise<AdapterApp>
}
