import { type Arrivals, DEFAULT_KEY } from './types.js'

/**
 * Collects requests (already in time order) into {@link Arrivals} columns, growing its typed arrays by
 * doubling. Key and cost columns are only kept when some request needs them.
 */
export class ArrivalsBuilder {
  private at: Float64Array
  private keyIndex: Uint32Array | undefined
  private cost: Float64Array | undefined
  private length = 0
  private readonly keys: string[] = []
  private readonly indexOf = new Map<string, number>()

  constructor(capacity = 1024) {
    this.at = new Float64Array(Math.max(16, capacity))
  }

  /** The index of `key`, registering it on first sight. */
  key(key: string): number {
    let index = this.indexOf.get(key)
    if (index === undefined) {
      index = this.keys.length
      this.keys.push(key)
      this.indexOf.set(key, index)
    }
    return index
  }

  /** Append a request at `at` ms from the key of index `key` (see {@link key}) with `cost`. */
  push(at: number, key = 0, cost = 1): void {
    if (this.length === this.at.length) this.grow()
    const i = this.length++
    this.at[i] = at
    if (key !== 0 && this.keyIndex === undefined) this.keyIndex = new Uint32Array(this.at.length)
    if (this.keyIndex) this.keyIndex[i] = key
    if (cost !== 1 && this.cost === undefined) this.cost = new Float64Array(this.at.length).fill(1)
    if (this.cost) this.cost[i] = cost
  }

  /** The collected columns, trimmed to length (the builder must not be used afterwards). */
  build(): Arrivals {
    const n = this.length
    if (this.keys.length === 0) this.key(DEFAULT_KEY)
    return {
      at: this.at.slice(0, n),
      keys: this.keys,
      keyIndex: this.keyIndex?.slice(0, n),
      cost: this.cost?.slice(0, n),
    }
  }

  private grow(): void {
    const size = this.at.length * 2
    const at = new Float64Array(size)
    at.set(this.at)
    this.at = at
    if (this.keyIndex) {
      const keyIndex = new Uint32Array(size)
      keyIndex.set(this.keyIndex)
      this.keyIndex = keyIndex
    }
    if (this.cost) {
      const cost = new Float64Array(size).fill(1)
      cost.set(this.cost)
      this.cost = cost
    }
  }
}
