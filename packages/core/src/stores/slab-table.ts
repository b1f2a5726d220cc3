import type { Algorithm } from '../types.js'

const INITIAL_SLOTS = 64
/** Keys looked at to choose one to forget when the table is full. */
const EVICTION_SAMPLE = 8

/**
 * The state of every key of one algorithm, in one flat buffer: `index` maps a key to a slot, the slot's
 * `stateSize` numbers live at `slot * stateSize` in `data`, and `keys` maps a slot back to its key. A decision
 * touches the `Map` entry and the slot, nothing more; the sweep and the eviction scan slots in order from a
 * cursor that survives between calls, and touch the `Map` only to delete.
 */
export class SlabTable {
  readonly index = new Map<string, number>()
  readonly width: number
  /** A fresh (all zeros) state, for reading keys that have none. */
  readonly blank: Float64Array
  data: Float64Array
  private keys: (string | undefined)[] = []
  private capacity: number
  private freeSlots: number[] = []
  private used = 0
  private cursor = 0

  constructor(
    readonly algorithm: Algorithm,
    private readonly maxKeys: number,
  ) {
    this.width = algorithm.stateSize
    this.blank = new Float64Array(this.width)
    this.capacity = Math.min(INITIAL_SLOTS, maxKeys)
    this.data = new Float64Array(this.capacity * this.width)
  }

  get size(): number {
    return this.index.size
  }

  /** A zeroed slot for `key`; when the table is full, the sampled key closest to fresh is forgotten first. */
  allocate(key: string, now: number): number {
    let slot = this.freeSlots.pop()
    if (slot === undefined) {
      if (this.used === this.capacity && this.capacity < this.maxKeys) this.grow()
      slot = this.used < this.capacity ? this.used++ : this.evict(now)
    }
    this.data.fill(0, slot * this.width, (slot + 1) * this.width)
    this.index.set(key, slot)
    this.keys[slot] = key
    return slot
  }

  /** Forget a key's state. */
  remove(key: string): void {
    const slot = this.index.get(key)
    if (slot !== undefined) this.free(slot, key)
  }

  /** Look at up to `count` slots, continuing where the last sweep stopped, and drop keys expired by `now`. */
  sweep(now: number, count: number): void {
    const { algorithm, data, width, keys } = this
    for (let i = Math.min(count, this.used); i > 0; i--) {
      const slot = this.nextSlot()
      const key = keys[slot]
      if (key !== undefined && algorithm.expiresAt(data, slot * width) <= now) this.free(slot, key)
    }
  }

  clear(): void {
    this.index.clear()
    this.keys = []
    this.freeSlots = []
    this.used = 0
    this.cursor = 0
  }

  private free(slot: number, key: string): void {
    this.index.delete(key)
    this.keys[slot] = undefined
    this.freeSlots.push(slot)
  }

  private nextSlot(): number {
    if (this.cursor >= this.used) this.cursor = 0
    return this.cursor++
  }

  /**
   * Free the slot of the key whose loss matters least: among the next few slots from the cursor (the ones
   * looked at longest ago), an expired one if any, else the one with the most quota left (the earliest to
   * expire on a tie). An over-limit client has none left, so a flood of new keys cannot push it out before
   * the clients that are nearly fresh.
   */
  private evict(now: number): number {
    const { algorithm, data, width, keys } = this
    let victim = -1
    let mostLeft = -1
    let earliest = Number.POSITIVE_INFINITY
    for (let i = 0; i < EVICTION_SAMPLE; i++) {
      const slot = this.nextSlot()
      const at = slot * width
      const expiresAt = algorithm.expiresAt(data, at)
      if (expiresAt <= now) {
        victim = slot
        break
      }
      const left = algorithm.peek(data, at, now, 1).remaining
      if (left > mostLeft || (left === mostLeft && expiresAt < earliest)) {
        mostLeft = left
        earliest = expiresAt
        victim = slot
      }
    }
    this.index.delete(keys[victim]!)
    return victim
  }

  private grow(): void {
    this.capacity = Math.min(this.capacity * 2, this.maxKeys)
    const data = new Float64Array(this.capacity * this.width)
    data.set(this.data)
    this.data = data
  }
}
