import type { Algorithm } from '../types.js'

const NONE = -1
const INITIAL_SLOTS = 64

/**
 * The state of every key of one algorithm, in one flat buffer: `index` maps a key to a slot, the slot's
 * `stateSize` numbers live at `slot * stateSize` in `data`, and `older`/`newer` link the slots from least to
 * most recently used. Everything is O(1) per operation and about 30 bytes per key beyond the `Map` entry.
 */
export class SlabTable {
  readonly index = new Map<string, number>()
  readonly width: number
  /** A fresh (all zeros) state, for reading keys that have none. */
  readonly blank: Float64Array
  data: Float64Array
  private keys: (string | undefined)[] = []
  private older: Int32Array
  private newer: Int32Array
  private newest = NONE
  private oldest = NONE
  private freeSlots: number[] = []
  private used = 0
  private cursor = 0

  constructor(
    readonly algorithm: Algorithm,
    private readonly maxKeys: number,
  ) {
    this.width = algorithm.stateSize
    this.blank = new Float64Array(this.width)
    const slots = Math.min(INITIAL_SLOTS, maxKeys)
    this.data = new Float64Array(slots * this.width)
    this.older = new Int32Array(slots)
    this.newer = new Int32Array(slots)
  }

  get size(): number {
    return this.index.size
  }

  /** Slots handed out so far (live or free). */
  get slots(): number {
    return this.used
  }

  /** Mark a slot most recently used. */
  touch(slot: number): void {
    if (slot === this.newest) return
    this.unlink(slot)
    this.pushNewest(slot)
  }

  /** A zeroed slot for `key`, evicting the least recently used key when the table is full. */
  allocate(key: string): number {
    let slot = this.freeSlots.pop()
    if (slot === undefined) {
      if (this.used < this.older.length) slot = this.used++
      else if (this.used < this.maxKeys) {
        this.grow()
        slot = this.used++
      } else {
        slot = this.oldest
        this.index.delete(this.keys[slot]!)
        this.unlink(slot)
      }
    }
    this.data.fill(0, slot * this.width, (slot + 1) * this.width)
    this.keys[slot] = key
    this.index.set(key, slot)
    this.pushNewest(slot)
    return slot
  }

  /** Forget a key's state. */
  remove(slot: number): void {
    const key = this.keys[slot]
    if (key === undefined) return
    this.index.delete(key)
    this.keys[slot] = undefined
    this.unlink(slot)
    this.freeSlots.push(slot)
  }

  /** Look at up to `count` slots, round robin, and drop those whose state has expired by `now`. */
  sweep(now: number, count: number): void {
    const { algorithm, width } = this
    const limit = Math.min(count, this.used)
    for (let i = 0; i < limit; i++) {
      if (this.cursor >= this.used) this.cursor = 0
      const slot = this.cursor++
      if (this.keys[slot] !== undefined && algorithm.expiresAt(this.data, slot * width) <= now)
        this.remove(slot)
    }
  }

  clear(): void {
    this.index.clear()
    this.keys = []
    this.freeSlots = []
    this.used = 0
    this.cursor = 0
    this.newest = NONE
    this.oldest = NONE
  }

  private grow(): void {
    const slots = Math.min(this.older.length * 2, this.maxKeys)
    const data = new Float64Array(slots * this.width)
    data.set(this.data)
    this.data = data
    const older = new Int32Array(slots)
    older.set(this.older)
    this.older = older
    const newer = new Int32Array(slots)
    newer.set(this.newer)
    this.newer = newer
  }

  private pushNewest(slot: number): void {
    this.older[slot] = this.newest
    this.newer[slot] = NONE
    if (this.newest !== NONE) this.newer[this.newest] = slot
    this.newest = slot
    if (this.oldest === NONE) this.oldest = slot
  }

  private unlink(slot: number): void {
    const older = this.older[slot]!
    const newer = this.newer[slot]!
    if (older !== NONE) this.newer[older] = newer
    else this.oldest = newer
    if (newer !== NONE) this.older[newer] = older
    else this.newest = older
  }
}
