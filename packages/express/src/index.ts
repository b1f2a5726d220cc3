import {
  createRateLimitHandler,
  type Outcome,
  type ProxyTrust,
  type RateLimitHandler,
  type RateLimitOptions,
  type RequestInfo,
  type UsageReport,
} from '@floodgate/core'
import type { NextFunction, Request, RequestHandler, Response } from 'express'
import { routePattern } from './route-pattern.js'

export type { Outcome, RateLimitOptions, Usage, UsageReport } from '@floodgate/core'
export { type ExpressLoadShedderOptions, loadShedder } from './load-shedder.js'
export { type ExpressPriorityQueueOptions, priorityQueue } from './priority-queue.js'

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

/** Express's `trust proxy` setting, as core reads it: `false` trusts none, `true` all, anything else some. */
function proxyTrust(req: Request): ProxyTrust {
  const setting = (req.app?.settings as Record<string, unknown> | undefined)?.['trust proxy']
  return setting === true
    ? 'all'
    : setting === false || setting === undefined || setting === 0
      ? 'none'
      : 'some'
}

/** A request as core sees it; the route pattern is found only when something reads it. */
class ExpressRequestInfo implements RequestInfo<Request> {
  readonly ip: string | undefined
  readonly method: string
  readonly path: string
  readonly headers: Request['headers']
  readonly proxyTrust: ProxyTrust
  private pattern: string | null | undefined
  private found = false

  constructor(readonly native: Request) {
    this.ip = native.ip
    this.method = native.method
    this.path = native.originalUrl
    this.headers = native.headers
    this.proxyTrust = proxyTrust(native)
  }

  get route(): string | null | undefined {
    if (!this.found) {
      this.pattern = routePattern(this.native)
      this.found = true
    }
    return this.pattern
  }
}

function send(outcome: Outcome, res: Response): void {
  const headers = outcome.headers
  for (const name in headers) res.setHeader(name, headers[name]!)
  res.statusCode = outcome.status
  res.setHeader('content-type', outcome.contentType!)
  // Set even for HEAD (which sends no body), so keep-alive clients keep the connection.
  res.setHeader('content-length', Buffer.byteLength(outcome.body!))
  res.end(outcome.body)
}

function write(
  handler: RateLimitHandler<Request>,
  outcome: Outcome,
  info: RequestInfo<Request>,
  res: Response,
  next: NextFunction,
): void {
  try {
    if (!outcome.allowed) {
      send(outcome, res)
      return
    }
    const headers = outcome.headers
    for (const name in headers) res.setHeader(name, headers[name]!)
  } catch (error) {
    // A header the framework refused (a custom handler's, say): answer 500 and keep serving.
    try {
      if (res.headersSent) return void res.destroy()
      for (const name of res.getHeaderNames()) res.removeHeader(name)
      send(handler.writeFailed(error, info), res)
      return
    } catch {
      return void res.destroy()
    }
  }
  const req = info.native
  req.rateLimit = outcome
  if (handler.refunds && outcome.items) completeOnClose(handler, outcome, res)
  next()
}

/**
 * Tell the handler how the response ended, for its refunds. A function of its own, as are the callbacks below:
 * a closure made in a function on every request's path would make each call of it allocate a context.
 */
function completeOnClose(handler: RateLimitHandler<Request>, outcome: Outcome, res: Response): void {
  res.once('close', () => handler.complete(outcome, res.writableFinished ? res.statusCode : 0))
}

function writeLater(
  handler: RateLimitHandler<Request>,
  decided: Promise<Outcome>,
  info: RequestInfo<Request>,
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
  return Object.assign(middleware, { usage: handler.usage })
}

/** The middleware, with the usage report of its plans (`usage(apiKey)`, `resetUsage(apiKey)`) when it has `plans`. */
export type RateLimitMiddleware = RequestHandler & { readonly usage: UsageReport | undefined }
