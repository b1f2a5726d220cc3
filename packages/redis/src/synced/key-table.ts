import type { Algorithm } from '@floodgate/core'
import { ownCopy } from '@floodgate/core/internal'
import type { RedisStore } from '../store.js'
import { KeySlab } from './key-slab.js'
import { SyncedKey } from './synced-key.js'
import { windowKindOf } from './window-kinds.js'

/** How many keys of each algorithm, the oldest first, are looked at for one to forget. */
const EVICTION_CANDIDATES = 32

/**
 * The keys one process holds, per algorithm (one slab per algorithm id, the last algorithm asked for
 * remembered), bounded by `maxKeys`: past it, a key with nothing left to send is forgotten (see `evict`). A key being
 * reset gets no new entry until its reset in Redis has settled.
 */
export class KeyTable {
  private readonly slabs = new Map<string, KeySlab>()
  /** The resets in flight, by Redis key: settled (never rejected) when done. */
  private readonly resets = new Map<string, Promise<void>>()
  private lastAlgorithm: Algorithm | undefined
  private lastSlab: KeySlab | undefined
  /** What allowances of decisions on a slab alone are divided by (see `KeySlab.shares`). */
  private shares = 0
  size = 0

  constructor(
    private readonly store: RedisStore,
    private readonly maxKeys: number,
  ) {}

  /** The slab of `algorithm`'s keys, if this process holds any. */
  slabOf(algorithm: Algorithm): KeySlab | undefined {
    if (algorithm === this.lastAlgorithm) return this.lastSlab
    const slab = this.slabs.get(algorithm.id)
    if (!slab) return undefined
    this.lastAlgorithm = algorithm
    this.lastSlab = slab
    return slab
  }

  /** Divide allowances by `shares` in every slab from now on (see `KeySlab.setShares`). */
  setShares(shares: number): void {
    this.shares = shares
    for (const slab of this.slabs.values()) slab.setShares(shares)
  }

  /** The key's entry, if this process holds it. */
  find(algorithm: Algorithm, key: string): SyncedKey | undefined {
    return this.slabOf(algorithm)?.find(key)
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
    let slab = this.slabs.get(algorithm.id)
    if (!slab) {
      slab = new KeySlab(kind.stateSize)
      slab.shares = this.shares
      this.slabs.set(algorithm.id, slab)
    }
    if (this.size >= this.maxKeys) this.evict()
    // A copy of its own: a key cut from a long string (a header's token) would keep that string alive.
    const entry = new SyncedKey(ownCopy(key), rkey, algorithm, kind, slab)
    slab.add(entry)
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
    // Out of the shared slab first (its slot is free from now on), then into one of its own.
    if (entry.slab.remove(entry)) this.size--
    entry.moveToOwnSlab()
    const waiters = entry.waiters
    entry.waiters = undefined
    for (const resolve of waiters ?? []) resolve()
  }

  /** Forget every key. */
  clear(): void {
    for (const slab of this.slabs.values()) for (const entry of slab.values()) entry.detached = true
    this.slabs.clear()
    this.lastAlgorithm = undefined
    this.lastSlab = undefined
    this.size = 0
  }

  /**
   * Forget one key with nothing left to send (no units pending or in flight, not used since the last sync),
   * the oldest first. A key looked at that still has units to send is not forgotten (that would lose what it
   * counted) and goes to the back of the order, so the next look starts with others. When none of the keys
   * looked at can go, none is forgotten: the table then holds more than `maxKeys` for a while, by at most the
   * keys used since the last sync, which have nothing left to send once it lands.
   */
  private evict(): void {
    for (const slab of this.slabs.values()) {
      const busy: SyncedKey[] = []
      let victim: SyncedKey | undefined
      for (const entry of slab.values()) {
        if (entry.pendingEmpty && !entry.inFlight && !entry.queued) {
          victim = entry
          break
        }
        busy.push(entry)
        if (busy.length === EVICTION_CANDIDATES) break
      }
      for (const entry of busy) slab.toBack(entry)
      if (victim) {
        this.forget(victim)
        return
      }
    }
  }
}
