import type { Algorithm } from '@floodgate/core'
import type { RedisStore } from '../store.js'
import { KEY_NUMBERS, SyncedKey } from './synced-key.js'
import { ViewSlab } from './view-slab.js'
import { windowKindOf } from './window-kinds.js'

/**
 * The keys one process holds, per algorithm (one map and one flat buffer of views per algorithm id, the last
 * algorithm asked for remembered), bounded by `maxKeys`: past it, a key with nothing left to send is forgotten
 * first. A key being reset gets no new entry until its reset in Redis has settled.
 */
export class KeyTable {
  private readonly tables = new Map<string, Map<string, SyncedKey>>()
  /** The resets in flight, by Redis key: settled (never rejected) when done. */
  private readonly resets = new Map<string, Promise<void>>()
  private readonly slabs = new Map<string, ViewSlab>()
  private lastAlgorithm: Algorithm | undefined
  private lastTable: Map<string, SyncedKey> | undefined
  size = 0

  constructor(
    private readonly store: RedisStore,
    private readonly maxKeys: number,
  ) {}

  /** The key's entry, if this process holds it. */
  find(algorithm: Algorithm, key: string): SyncedKey | undefined {
    if (algorithm === this.lastAlgorithm) return this.lastTable!.get(key)
    const table = this.tables.get(algorithm.id)
    if (!table) return undefined
    this.lastAlgorithm = algorithm
    this.lastTable = table
    return table.get(key)
  }

  /** The key's entry, created when this process does not hold it yet; a promise while the key is being reset. */
  entry(algorithm: Algorithm, key: string): SyncedKey | Promise<void> {
    const found = this.find(algorithm, key)
    if (found) return found
    windowKindOf(algorithm) // an algorithm it cannot count is refused before anything else
    const rkey = this.redisKey(algorithm, key)
    return this.resets.get(rkey) ?? this.create(algorithm, key, rkey)
  }

  /** Hold new entries for `rkey` until `done`, its reset in Redis, settles; resolves or rejects as `done` does. */
  async resetting(rkey: string, done: Promise<void>): Promise<void> {
    const settled = done.then(
      () => {},
      () => {},
    )
    this.resets.set(rkey, settled)
    try {
      await done
    } finally {
      if (this.resets.get(rkey) === settled) this.resets.delete(rkey)
    }
  }

  /** A new entry for the key (its algorithm checked: a `RateLimitConfigError` for one it cannot count). */
  create(algorithm: Algorithm, key: string, rkey: string): SyncedKey {
    const kind = windowKindOf(algorithm)
    let table = this.tables.get(algorithm.id)
    let slab = this.slabs.get(algorithm.id)
    if (!table || !slab) {
      table = new Map()
      slab = new ViewSlab(kind.stateSize + KEY_NUMBERS)
      this.tables.set(algorithm.id, table)
      this.slabs.set(algorithm.id, slab)
    }
    if (this.size >= this.maxKeys) this.evict()
    const entry = new SyncedKey(key, rkey, algorithm, kind, slab)
    table.set(key, entry)
    this.size++
    return entry
  }

  /** The Redis key of `key` for `algorithm`. */
  redisKey(algorithm: Algorithm, key: string): string {
    return this.store.keyOf(algorithm, key)
  }

  /** Forget one key: a reply still in flight no longer applies to it, and requests waiting on it start over. */
  forget(entry: SyncedKey): void {
    entry.detached = true
    if (this.tables.get(entry.algorithm.id)?.delete(entry.key)) {
      this.size--
      entry.slab.release(entry.at)
    }
    const waiters = entry.waiters
    entry.waiters = undefined
    for (const resolve of waiters ?? []) resolve()
  }

  /** Forget every key. */
  clear(): void {
    for (const table of this.tables.values()) for (const entry of table.values()) entry.detached = true
    this.tables.clear()
    this.slabs.clear()
    this.lastAlgorithm = undefined
    this.lastTable = undefined
    this.size = 0
  }

  /** Forget one key, preferring one with nothing left to send (among the first few of each algorithm). */
  private evict(): void {
    let victim: SyncedKey | undefined
    for (const table of this.tables.values()) {
      let looked = 0
      for (const entry of table.values()) {
        victim ??= entry
        if (entry.pendingEmpty && !entry.inflight && !entry.queued) {
          victim = entry
          break
        }
        if (++looked === 8) break
      }
      if (victim?.pendingEmpty) break
    }
    if (victim) this.forget(victim)
  }
}
