import type { Gate, RequestInfo } from '@floodgate/core'
import type { FastifyRequest, onRequestHookHandler } from 'fastify'

/**
 * An `onRequest` hook around a core gate (`priorityQueue`, `loadShedder`): the request enters, leaves when
 * the response closes (finished, or the client went away), and proceeds or gets the gate's answer. A request
 * whose client went away before it was let in never reaches the route.
 */
export function gateHook(gate: Gate<FastifyRequest>): onRequestHookHandler {
  return async function floodgateGate(request, reply) {
    const info: RequestInfo<FastifyRequest> = {
      ip: request.ip,
      method: request.method,
      route: request.routeOptions.url,
      path: request.url,
      headers: request.headers,
      native: request,
    }
    const entry = gate.enter(info)
    reply.raw.once('close', entry.leave)
    const outcome = await entry.outcome
    if (outcome.kind === 'pass') return
    if (outcome.kind === 'gone') return reply.hijack()
    return reply.code(outcome.status).headers(outcome.headers).type(outcome.contentType).send(outcome.body)
  }
}
