import type { Algorithm, Decision, Store } from '@floodgate/core'

/**
 * A store of one's own: each key's state kept as text in a Map, as a store on a remote key-value service would
 * keep it (numbers joined by commas), under the algorithm's id and the key.
 */
export class MapStore implements Store {
  private readonly states = new Map<string, Map<string, string>>()

  constructor(private readonly clock: () => number = Date.now) {}

  consume(algorithm: Algorithm, key: string, cost: number, now = this.clock()): Decision {
    const state = this.read(algorithm, key)
    const decision = algorithm.consume(state, 0, now, cost)
    // The algorithm writes the state only when it allows the request: a refusal leaves the store as it was.
    if (decision.allowed) this.write(algorithm, key, state)
    return decision
  }

  peek(algorithm: Algorithm, key: string, cost: number, now = this.clock()): Decision {
    return algorithm.peek(this.read(algorithm, key), 0, now, cost)
  }

  refund(algorithm: Algorithm, key: string, cost: number, now = this.clock()): void {
    if (!this.keysOf(algorithm).has(key)) return // nothing spent: nothing to give back
    const state = this.read(algorithm, key)
    algorithm.refund(state, 0, now, cost)
    this.write(algorithm, key, state)
  }

  /** Give back the units of an allowed decision's `lease` (a `concurrency` policy's), if still held. */
  release(algorithm: Algorithm, key: string, lease: string, now = this.clock()): void {
    if (!algorithm.release || !this.keysOf(algorithm).has(key)) return
    const state = this.read(algorithm, key)
    algorithm.release(state, 0, now, lease)
    this.write(algorithm, key, state)
  }

  reset(algorithm: Algorithm, key: string): void {
    this.keysOf(algorithm).delete(key)
  }

  clear(): void {
    this.states.clear()
  }

  close(): void {
    this.states.clear()
  }

  /** The keys of one algorithm: a Map of its own, so that no key of one can be taken for a key of another. */
  private keysOf(algorithm: Algorithm): Map<string, string> {
    let keys = this.states.get(algorithm.id)
    if (!keys) {
      keys = new Map()
      this.states.set(algorithm.id, keys)
    }
    return keys
  }

  /** A key's state: all zeros (a full quota) when the store has none. */
  private read(algorithm: Algorithm, key: string): Float64Array {
    const text = this.keysOf(algorithm).get(key)
    const state = new Float64Array(algorithm.stateSize)
    if (text !== undefined) {
      const numbers = text.split(',')
      for (let i = 0; i < numbers.length; i++) state[i] = Number(numbers[i])
    }
    return state
  }

  /** Write a key's state as text; a state back to all zeros is forgotten, as it is a full quota. */
  private write(algorithm: Algorithm, key: string, state: Float64Array): void {
    if (state.every((n) => n === 0)) this.keysOf(algorithm).delete(key)
    else this.keysOf(algorithm).set(key, state.join(','))
  }
}
