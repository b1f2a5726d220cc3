import { ownCopy } from '../store-keys/own-copy.js'
import type { Algorithm } from '../types.js'

const INITIAL_SLOTS = 64
/** Keys looked at to choose one to forget when the table is full. */
const EVICTION_SAMPLE = 8

/**
 * The state of every key of one algorithm, in one flat buffer: `index` maps a key to a slot, and the slot's
 * `stateSize` numbers live at `slot * stateSize` in `data`. Nothing else is kept per key (no links, no
 * reverse index): the sweep and the eviction walk the `Map`'s own insertion order with a cursor that survives
 * between calls. A decision touches the `Map` entry and the slot, nothing more.
 */
export class SlabTable {
  readonly index = new Map<string, number>()
  readonly width: number
  /** A fresh (all zeros) state, for reading keys that have none. */
  readonly blank: Float64Array
  data: Float64Array
  private capacity: number
  private freeSlots: number[] = []
  private used = 0
  private cursor: Iterator<string> | undefined

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
    this.index.set(ownCopy(key), slot)
    return slot
  }

  /** Forget a key's state. */
  remove(key: string): void {
    const slot = this.index.get(key)
    if (slot === undefined) return
    this.index.delete(key)
    this.freeSlots.push(slot)
  }

  /** Look at up to `count` keys, continuing where the last sweep stopped, and drop those expired by `now`. */
  sweep(now: number, count: number): void {
    const { algorithm, data, width, index } = this
    for (let i = Math.min(count, index.size); i > 0; i--) {
      const key = this.next()
      if (key === undefined) return
      const slot = index.get(key)!
      if (algorithm.expiresAt(data, slot * width) <= now) this.remove(key)
    }
  }

  clear(): void {
    this.index.clear()
    this.freeSlots = []
    this.used = 0
    this.cursor = undefined
  }

  /**
   * Free the slot of the key whose loss matters least: among the next few keys in the `Map`'s order (the
   * oldest insertions first), an expired one if any, else the one with the most quota left (the earliest to
   * expire on a tie). An over-limit client has none left, so a flood of new keys cannot push it out before
   * the clients that are nearly fresh.
   */
  private evict(now: number): number {
    const { algorithm, data, width, index } = this
    let victim: string | undefined
    let mostLeft = -1
    let earliest = Number.POSITIVE_INFINITY
    for (let i = 0; i < EVICTION_SAMPLE; i++) {
      const key = this.next()
      if (key === undefined) break
      const at = index.get(key)! * width
      const expiresAt = algorithm.expiresAt(data, at)
      if (expiresAt <= now) {
        victim = key
        break
      }
      const left = algorithm.peek(data, at, now, 1).remaining
      if (left > mostLeft || (left === mostLeft && expiresAt < earliest)) {
        mostLeft = left
        earliest = expiresAt
        victim = key
      }
    }
    const slot = index.get(victim!)!
    index.delete(victim!)
    return slot
  }

  /** The next key in the `Map`'s order, wrapping around; `undefined` only when the table is empty. */
  private next(): string | undefined {
    if (this.index.size === 0) return undefined
    let step = this.cursor?.next()
    if (!step || step.done) {
      this.cursor = this.index.keys()
      step = this.cursor.next()
    }
    return step.done ? undefined : step.value
  }

  private grow(): void {
    this.capacity = Math.min(this.capacity * 2, this.maxKeys)
    const data = new Float64Array(this.capacity * this.width)
    data.set(this.data)
    this.data = data
  }
}
