import type { Gate, GateOutcome, RequestInfo } from '@floodgate/core'
import type { NextFunction, Request, RequestHandler, Response } from 'express'

function write(outcome: GateOutcome, res: Response, next: NextFunction): void {
  if (outcome.kind === 'pass') {
    next()
    return
  }
  if (outcome.kind === 'gone' || res.headersSent || res.destroyed) return
  res.statusCode = outcome.status
  for (const name in outcome.headers) res.setHeader(name, outcome.headers[name]!)
  res.setHeader('content-type', outcome.contentType)
  res.setHeader('content-length', Buffer.byteLength(outcome.body))
  res.end(outcome.body)
}

/**
 * Express middleware around a core gate (`priorityQueue`, `loadShedder`): the request enters, leaves when
 * the response closes (finished, or the client went away), and proceeds or gets the gate's answer.
 */
export function gateMiddleware(gate: Gate<Request>): RequestHandler {
  return (req, res, next) => {
    const info: RequestInfo<Request> = {
      ip: req.ip,
      method: req.method,
      route: undefined,
      path: req.originalUrl,
      headers: req.headers,
      native: req,
    }
    const entry = gate.enter(info)
    res.once('close', entry.leave)
    const outcome = entry.outcome
    if (outcome instanceof Promise) outcome.then((o) => write(o, res, next), next)
    else write(outcome, res, next)
  }
}
