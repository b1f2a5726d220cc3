import { MemoryStore, type Store } from '../src/index.js'

/** A MemoryStore behind promises, as a store that answers over the network does (and not `synchronous`). */
export function promisedStore(memory = new MemoryStore()): Store {
  return {
    consume: async (a, k, c, n) => memory.consume(a, k, c, n),
    peek: async (a, k, c, n) => memory.peek(a, k, c, n),
    refund: async (a, k, c, n) => memory.refund(a, k, c, n),
    reset: async (a, k) => memory.reset(a, k),
    close: async () => memory.close(),
  }
}
