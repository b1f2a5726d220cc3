import { createPriorityQueue, type PriorityQueue, type PriorityQueueOptions } from '@floodgate/core'
import type { Context, Middleware } from 'koa'
import { gateMiddleware } from './gate.js'

/** The options of the Koa priority queue: every core option; `priority` gets Koa's `ctx`. */
export type KoaPriorityQueueOptions = PriorityQueueOptions<Context>

/**
 * Serve at most `concurrency` requests at once; the others wait in the queue `priority` names, drained in
 * the order the queues are listed. A full queue answers 429, a request that waited `maxWait` 503, both with
 * `Retry-After`; a client that disconnects while waiting leaves its queue at once.
 *
 * @example
 * app.use(priorityQueue({
 *   concurrency: 64,
 *   priority: (ctx) => (ctx.state.user?.plan === 'premium' ? 'premium' : 'standard'),
 *   queues: { premium: { capacity: 500 }, standard: { capacity: 100 } },
 *   maxWait: '10s',
 * }))
 */
export function priorityQueue(
  options: KoaPriorityQueueOptions,
): Middleware & { readonly queue: PriorityQueue<Context> } {
  const queue = createPriorityQueue<Context>(options)
  return Object.assign(gateMiddleware(queue), { queue })
}
