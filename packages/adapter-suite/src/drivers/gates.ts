import type { LoadShedder, PriorityQueue } from '@floodgate/core/internal'
import type { AppGates, DegradationSetup } from '../types.js'

/** An adapter's degradation middleware factories (Express's or Koa's `priorityQueue` and `loadShedder`). */
export interface GateFactories<Q, S> {
  priorityQueue(options: never): Q
  loadShedder(options: never): S
}

/**
 * Mount the degradation middlewares `degradation` asks for with `use` (the priority queue first, then the load
 * shedder), and return them to look at.
 */
export function useGates<
  Q extends { readonly queue: PriorityQueue<never> },
  S extends { readonly shedder: LoadShedder<never> },
>(
  degradation: DegradationSetup | undefined,
  factories: GateFactories<Q, S>,
  use: (middleware: Q | S) => void,
): AppGates {
  const gates: AppGates = {}
  if (degradation?.priorityQueue) {
    const middleware = factories.priorityQueue(degradation.priorityQueue as never)
    gates.priorityQueue = middleware.queue as PriorityQueue
    use(middleware)
  }
  if (degradation?.loadShedder) {
    const middleware = factories.loadShedder(degradation.loadShedder as never)
    gates.loadShedder = middleware.shedder as LoadShedder
    use(middleware)
  }
  return gates
}
