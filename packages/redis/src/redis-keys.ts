import type { Algorithm } from '@floodgate/core'
import { MAX_KEPT_STORE_KEY_LENGTH, ownCopy } from '@floodgate/core/internal'
import { redisKey } from './redis-key.js'

/** How many Redis keys a store keeps built per algorithm; past it, it starts again from none. */
export const KEPT_REDIS_KEYS = 4096

/**
 * The Redis keys of the store keys seen lately, per algorithm: a client's next decision finds its key built.
 * Building one (`prefix:{key}:algorithm`, after checking and encoding the key) costs more than looking it up,
 * and the string in pieces it makes is joined into one by the client before it is written, on every call.
 * Each is kept as a string of its own (`ownCopy`), so a key cut from a long string keeps nothing else alive; a
 * key longer than `MAX_KEPT_STORE_KEY_LENGTH` (256) characters is built every time and never kept. So the cache
 * holds at most 4,096 keys per algorithm, each pair of strings under 1.2 KB, whatever keys callers send.
 */
export class RedisKeys {
  private readonly byAlgorithm = new Map<string, Map<string, string>>()
  private lastAlgorithm: Algorithm | undefined
  private last: Map<string, string> | undefined

  constructor(private readonly prefix: string) {}

  /** The Redis key holding `key`'s state for `algorithm` (see `redisKey`). */
  of(algorithm: Algorithm, key: string): string {
    let kept = algorithm === this.lastAlgorithm ? this.last : this.keptOf(algorithm)
    let rkey = kept!.get(key)
    if (rkey !== undefined) return rkey
    if (key.length > MAX_KEPT_STORE_KEY_LENGTH) return redisKey(this.prefix, key, algorithm.id)
    if (kept!.size >= KEPT_REDIS_KEYS) {
      kept = new Map()
      this.byAlgorithm.set(algorithm.id, kept)
      this.lastAlgorithm = algorithm
      this.last = kept
    }
    rkey = ownCopy(redisKey(this.prefix, key, algorithm.id))
    kept!.set(ownCopy(key), rkey)
    return rkey
  }

  /** The Redis key holding `key`'s ban (`prefix:key:ban`, on the slot of the key's state). */
  banOf(key: string): string {
    let rkey = this.bans.get(key)
    if (rkey !== undefined) return rkey
    rkey = redisKey(this.prefix, key, 'ban')
    if (key.length > MAX_KEPT_STORE_KEY_LENGTH) return rkey
    if (this.bans.size >= KEPT_REDIS_KEYS) this.bans = new Map()
    rkey = ownCopy(rkey)
    this.bans.set(ownCopy(key), rkey)
    return rkey
  }

  private bans = new Map<string, string>()

  private keptOf(algorithm: Algorithm): Map<string, string> {
    let kept = this.byAlgorithm.get(algorithm.id)
    if (kept === undefined) {
      kept = new Map()
      this.byAlgorithm.set(algorithm.id, kept)
    }
    this.lastAlgorithm = algorithm
    this.last = kept
    return kept
  }
}
