import type { Outcome, RateLimitOptions, RequestRateLimit } from '@floodgate/core'
import {
  createRateLimitHandler,
  type LimiterControls,
  type RateLimitHandler,
  withControls,
  writeOutcome,
} from '@floodgate/core/internal'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { ExpressRequestInfo } from './request-info.js'

export type {
  Outcome,
  OverrideEntry,
  Overrides,
  RateLimitOptions,
  RequestRateLimit,
  RequestSlowDown,
  Unban,
  Usage,
  UsageReport,
} from '@floodgate/core'
export {
  type ExpressLoadShedderOptions,
  type ExpressPriorityQueueOptions,
  type ExpressSlowDownOptions,
  loadShedder,
  priorityQueue,
  slowDown,
} from './gates.js'

/** The options of the Express middleware: every core option; functions get Express's `req`. */
export type ExpressRateLimitOptions = RateLimitOptions<Request>

declare global {
  namespace Express {
    interface Request {
      /** What the app reads of the limit that let this request through: `limit`, `remaining`, `reset`, `policy`. */
      rateLimit?: RequestRateLimit
    }
  }
}

function write(
  handler: RateLimitHandler<Request>,
  outcome: Outcome,
  info: ExpressRequestInfo,
  res: Response,
  next: NextFunction,
): void {
  if (!writeOutcome(handler, outcome, info, res)) return
  info.native.rateLimit = outcome.rateLimit
  next()
}

/** A function of its own: a closure made in a function on every request's path would allocate a context. */
function writeLater(
  handler: RateLimitHandler<Request>,
  decided: Promise<Outcome>,
  info: ExpressRequestInfo,
  res: Response,
  next: NextFunction,
): void {
  decided.then((outcome) => write(handler, outcome, info, res, next), next)
}

/**
 * Rate limiting middleware for Express. On the app, a router, or one route; the client address is Express's
 * `req.ip`, so the app's `trust proxy` setting decides it. An `'endpoint'` key is the route pattern with the
 * patterns of the routers above it (`GET /orgs/:org/posts/:postId`), found from Express's own router even
 * when the limiter runs before routing.
 *
 * @example app.use(rateLimit({ limit: 100, window: '1m' }))
 * @example app.post('/login', rateLimit({ limit: 5, window: '15m', skipSuccessfulRequests: true }), login)
 */
export function rateLimit(options?: ExpressRateLimitOptions): RateLimitMiddleware {
  const handler = createRateLimitHandler<Request>(options)
  const middleware: RequestHandler = (req, res, next) => {
    const info = new ExpressRequestInfo(req)
    const decided = handler.handle(info, req.rateLimit)
    // Decided at once (the MemoryStore): go on in a microtask, with no promise in between. Not inside this
    // call: code an earlier middleware runs after its own next() (setting a header, say) still runs before
    // the route answers, as it does on every other store.
    if (!(decided instanceof Promise)) return queueMicrotask(() => write(handler, decided, info, res, next))
    writeLater(handler, decided, info, res, next)
  }
  return withControls(middleware, handler)
}

/**
 * The middleware, with the usage report of its plans (`usage(apiKey)`, `resetUsage(apiKey)`) when it has `plans`,
 * and `unban(key, { policy })`, which lifts a `ban` early on every server sharing the store.
 */
export type RateLimitMiddleware = RequestHandler & LimiterControls
