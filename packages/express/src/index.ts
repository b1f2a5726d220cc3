import {
  createRateLimitHandler,
  type Outcome,
  type RateLimitHandler,
  type RateLimitOptions,
  type RequestInfo,
} from '@floodgate/core'
import type { NextFunction, Request, RequestHandler, Response } from 'express'

export type { Outcome, RateLimitOptions } from '@floodgate/core'

/** The options of the Express middleware: every core option; functions get Express's `req`. */
export type ExpressRateLimitOptions = RateLimitOptions<Request>

declare global {
  namespace Express {
    interface Request {
      /** What `@floodgate/express` decided for this request (set when it proceeds). */
      rateLimit?: Outcome
    }
  }
}

function write(
  handler: RateLimitHandler<Request>,
  outcome: Outcome,
  req: Request,
  res: Response,
  next: NextFunction,
) {
  const headers = outcome.headers
  for (const name in headers) res.setHeader(name, headers[name]!)
  if (!outcome.allowed) {
    res.statusCode = outcome.status
    res.setHeader('content-type', outcome.contentType!)
    res.end(outcome.body)
    return
  }
  req.rateLimit = outcome
  if (handler.refunds && outcome.items) {
    res.once('close', () => handler.complete(outcome, res.writableFinished ? res.statusCode : 0))
  }
  next()
}

/**
 * Rate limiting middleware for Express. On the app, a router, or one route; the client address is Express's
 * `req.ip`, so the app's `trust proxy` setting decides it. Before routing (`app.use`) the route pattern is
 * unknown, so an `'endpoint'` key counts all of a method's requests together there; mount the limiter on a
 * route or router to key by endpoint.
 *
 * @example app.use(rateLimit({ limit: 100, window: '1m' }))
 * @example app.post('/login', rateLimit({ limit: 5, window: '15m', skipSuccessfulRequests: true }), login)
 */
export function rateLimit(options?: ExpressRateLimitOptions): RequestHandler {
  const handler = createRateLimitHandler<Request>(options)
  return (req, res, next) => {
    const route = req.route as { path?: unknown } | undefined
    const info: RequestInfo<Request> = {
      ip: req.ip,
      method: req.method,
      route: route ? req.baseUrl + String(route.path) : undefined,
      path: req.originalUrl,
      headers: req.headers,
      native: req,
    }
    handler.handle(info, req.rateLimit).then((outcome) => write(handler, outcome, req, res, next), next)
  }
}
