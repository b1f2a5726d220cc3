import type { Algorithm, ConsumeItem } from '@floodgate/core'
import { MAX_KEPT_STORE_KEY_LENGTH } from '@floodgate/core/internal'
import type { RedisDecision } from './wire.js'

/** The keys a block cache asked for with `blockCache: true` keeps. */
const DEFAULT_MAX_KEYS = 10_000

interface Entry {
  algorithm: Algorithm
  cost: number
  /** Refuse locally until this time (exclusive). */
  until: number
  /** Whether the times are the limiter's injected clock (else this process's monotonic clock). */
  injected: boolean
  decision: RedisDecision
  at: number
}

/**
 * A bounded local cache of refused keys: once Redis refuses a key, further requests for it (of at least the
 * same cost) are refused here, with no round trip, until just before its `retryAfterMs` has passed. It
 * refuses 1 ms less than Redis said (Redis rounds its waits up to a whole ms) and counts from when the
 * request was sent, so it never refuses longer than Redis would. When full, the oldest entry is dropped. A
 * Redis key longer than `MAX_KEPT_STORE_KEY_LENGTH` (256) characters is never kept (Redis decides it every
 * time), so an entry holds under 1 KB whatever keys callers send: at most `maxKeys` of them.
 */
export class BlockCache {
  private readonly entries = new Map<string, Entry>()
  /** Bans, by the Redis key of the ban: refused here until `until` (exclusive). */
  private readonly bans = new Map<string, { until: number; at: number; injected: boolean }>()

  constructor(readonly maxKeys: number) {}

  get size(): number {
    return this.entries.size
  }

  /** A local refusal for `key`, or `undefined` when Redis must be asked. */
  get(
    key: string,
    algorithm: Algorithm,
    cost: number,
    now: number,
    injected: boolean,
  ): RedisDecision | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry.injected !== injected || entry.algorithm.id !== algorithm.id) return undefined
    if (now >= entry.until || now < entry.at) {
      this.entries.delete(key)
      return undefined
    }
    if (cost < entry.cost) return undefined
    const elapsed = now - entry.at
    const d = entry.decision
    return {
      allowed: false,
      limit: d.limit,
      remaining: d.remaining,
      resetMs: Math.max(0, d.resetMs - elapsed),
      retryAfterMs: Math.max(0, d.retryAfterMs - elapsed),
      delayMs: 0,
      policy: '',
      source: 'block-cache',
    }
  }

  /** Remember a refusal decided for a request sent at `sentAt`. */
  add(
    key: string,
    algorithm: Algorithm,
    cost: number,
    decision: RedisDecision,
    sentAt: number,
    injected: boolean,
  ): void {
    const hold = decision.retryAfterMs - 1
    if (hold <= 0 || cost > algorithm.limit || key.length > MAX_KEPT_STORE_KEY_LENGTH) return
    if (this.entries.size >= this.maxKeys && !this.entries.has(key)) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
    this.entries.delete(key)
    this.entries.set(key, { algorithm, cost, until: sentAt + hold, injected, decision, at: sentAt })
  }

  /**
   * Remember each refusal among `decisions` of `items` (stored at `keys`), sent together at `sentAt`; a ban
   * (an item's decision with `bannedMs`) under its ban's key in `banKeys`, until just before it ends.
   */
  addRefusals(
    keys: readonly string[],
    items: readonly ConsumeItem[],
    decisions: readonly RedisDecision[],
    sentAt: number,
    injected: boolean,
    banKeys?: readonly (string | undefined)[],
  ): void {
    for (let i = 0; i < decisions.length; i++) {
      const decision = decisions[i]!
      if (decision.allowed) continue
      const banKey = banKeys?.[i]
      if (banKey !== undefined && (decision.bannedMs ?? 0) > 0) {
        this.addBan(banKey, decision.bannedMs!, sentAt, injected)
      } else this.add(keys[i]!, items[i]!.algorithm, items[i]!.cost, decision, sentAt, injected)
    }
  }

  /**
   * A ban kept here: the ms left of it at `now`, or 0 when Redis must be asked (none kept, or it ended). A
   * banned key is refused here until its ban ends, whatever it asks for, with no round trip.
   */
  bannedFor(banKey: string, now: number, injected: boolean): number {
    const ban = this.bans.get(banKey)
    if (ban === undefined) return 0
    if (ban.injected !== injected || now >= ban.until || now < ban.at) {
      this.bans.delete(banKey)
      return 0
    }
    return ban.until + 1 - now
  }

  /** Remember a ban of `ms` decided for a request sent at `sentAt` (1 ms less, as a refusal's wait). */
  private addBan(banKey: string, ms: number, sentAt: number, injected: boolean): void {
    const hold = ms - 1
    if (hold <= 0 || banKey.length > MAX_KEPT_STORE_KEY_LENGTH) return
    if (this.bans.size >= this.maxKeys && !this.bans.has(banKey)) {
      const oldest = this.bans.keys().next().value
      if (oldest !== undefined) this.bans.delete(oldest)
    }
    this.bans.delete(banKey)
    this.bans.set(banKey, { until: sentAt + hold, at: sentAt, injected })
  }

  delete(key: string): void {
    this.entries.delete(key)
  }

  /** Forget a ban kept here (an unban made through this store). */
  deleteBan(banKey: string): void {
    this.bans.delete(banKey)
  }

  clear(): void {
    this.entries.clear()
    this.bans.clear()
  }
}

/** The block cache a RedisStore's `blockCache` option asks for: none, one of the default size, or of `maxKeys`. */
export function blockCacheOf(option: boolean | { maxKeys: number }): BlockCache | undefined {
  if (option === false) return undefined
  return new BlockCache(option === true ? DEFAULT_MAX_KEYS : option.maxKeys)
}
