import type { LoadShedder, PriorityQueue, SlowDown } from '@floodgate/core/internal'
import type { AppGates, DegradationSetup } from '../types.js'

/** An adapter's degradation middleware factories (Express's or Koa's `priorityQueue`, `loadShedder`, `slowDown`). */
export interface GateFactories<Q, S, D> {
  priorityQueue(options: never): Q
  loadShedder(options: never): S
  slowDown(options: never): D
}

/**
 * Mount the degradation middlewares `degradation` asks for with `use` (the priority queue first, then the load
 * shedder, then the slow-down), and return them to look at.
 */
export function useGates<
  Q extends { readonly queue: PriorityQueue<never> },
  S extends { readonly shedder: LoadShedder<never> },
  D extends { readonly slowDown: SlowDown<never> },
>(
  degradation: DegradationSetup | undefined,
  factories: GateFactories<Q, S, D>,
  use: (middleware: Q | S | D) => void,
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
  if (degradation?.slowDown) {
    const middleware = factories.slowDown(degradation.slowDown as never)
    gates.slowDown = middleware.slowDown as SlowDown
    use(middleware)
  }
  return gates
}
