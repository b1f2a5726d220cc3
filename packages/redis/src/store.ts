import type { Algorithm, ConsumeItem, Decision, Store } from '@floodgate/core'
import {
  bannedDecision,
  CallFailure,
  Circuit,
  consumeInGroups,
  createStoreMetrics,
  DEFAULT_STORE_TIMEOUT_MS,
  type Deadlines,
  failureReporter,
  partitionOf,
  readSettled,
  SettingsPoller,
  type SettingsWatcher,
  type StoreMetrics,
  type StoreSettings,
} from '@floodgate/core/internal'
import { type BlockCache, blockCacheOf } from './block-cache.js'
import { circuitOpenError, storeErrorOf } from './errors.js'
import {
  parseStoreOptions,
  type RedisClient,
  type RedisStoreErrorEvent,
  type RedisStoreOptions,
} from './options.js'
import { RedisKeys } from './redis-keys.js'
import { DEFAULT_MAX_BATCH_SIZE, RedisBatches, type Waiting } from './same-tick-batches.js'
import { redisDeadlines, ScriptRunner } from './script-runner.js'
import { SETTINGS_READ, SETTINGS_WRITE } from './scripts/index.js'
import { StoreCalls, slotGroups } from './store-calls.js'
import { storeMetricsOf } from './store-metrics-of.js'
import { parseReply, type RedisDecision } from './wire.js'

/** A lease this store gave out: `<lease number>:<units>`. */
const LEASE = /^\d{1,16}:\d{1,9}$/

/**
 * Rate-limit state in Redis, shared by every server: each algorithm is Lua, run by EVALSHA (read, decide and
 * write atomically, on the Redis server's clock unless the limiter passes a time). The decisions asked for in
 * one tick (one turn of the event loop) go as one script call per Cluster slot (`batch`), each decided on its
 * own. Works on a standalone Redis and on a Redis Cluster, with ioredis or node-redis. Every call answers
 * within the limiter's `storeTimeout` or rejects with a `RedisStoreError` (at once while Redis is known to be
 * down): the limiter's `failMode` then decides.
 *
 * @example
 * const store = new RedisStore({ client: new Redis(process.env.REDIS_URL) })
 * const limiter = createLimiter({ algorithm: gcra({ rate: 10 }), store, failMode: { fallback: new MemoryStore() } })
 * @example
 * const store = new RedisStore({ client: await createClient({ url: process.env.REDIS_URL }).connect() })
 */
export class RedisStore implements Store {
  readonly client: RedisClient
  readonly prefix: string
  /** The deadlines of every call to Redis (this store's, and a SyncedStore's over it). */
  readonly deadlines: Deadlines
  /** The shortest bound a limiter set (`answerWithin`), if one did. */
  private bound: number | undefined
  private readonly circuit: Circuit
  private readonly blocks: BlockCache | undefined
  private readonly rkeys: RedisKeys
  private readonly calls: StoreCalls
  private readonly batches: RedisBatches
  private readonly metrics: StoreMetrics | undefined
  private readonly reportFailure: (failure: CallFailure, event: RedisStoreErrorEvent) => void
  private readonly runner: ScriptRunner
  /** Reads the watched settings documents every `settingsInterval` (from the first watch until close). */
  private readonly poller: SettingsPoller
  /** How long a change of settings made elsewhere takes to reach this store's watches, at most (ms). */
  readonly settingsIntervalMs: number

  constructor(options: RedisStoreOptions) {
    const parsed = parseStoreOptions(options)
    this.client = parsed.client
    this.prefix = parsed.prefix
    this.deadlines = redisDeadlines(DEFAULT_STORE_TIMEOUT_MS)
    const runner = new ScriptRunner(parsed.client, this.deadlines)
    this.runner = runner
    this.settingsIntervalMs = parsed.settingsInterval
    this.poller = new SettingsPoller(
      (name, known) => this.readSettingsSince(name, known),
      parsed.settingsInterval,
    )
    this.circuit = new Circuit(runner, parsed.cooldownMs)
    this.metrics = createStoreMetrics({
      sink: parsed.metrics,
      store: 'redis',
      operations: ['consume', 'consume_all', 'peek', 'refund', 'charge', 'reset', 'sync'],
      circuitOpen: () => this.circuit.open,
    })
    if (this.metrics) storeMetricsOf.set(this, this.metrics)
    this.calls = new StoreCalls(runner, parsed.expiryGraceMs, this.metrics)
    const batch = parsed.batch
    const maxSize = batch === false ? 0 : batch === true ? DEFAULT_MAX_BATCH_SIZE : batch.maxSize
    this.batches = new RedisBatches(this.calls, maxSize, this.answer)
    this.reportFailure = failureReporter({
      circuit: this.circuit,
      metrics: this.metrics,
      onError: parsed.onError,
    })
    this.rkeys = new RedisKeys(this.prefix)
    this.blocks = blockCacheOf(parsed.blockCache)
  }

  /** Whether calls are failing fast right now because Redis recently failed. */
  get degraded(): boolean {
    return this.circuit.open
  }

  /** The most a call waits for Redis, in ms: the limiter's `storeTimeout` (see `answerWithin`). */
  get timeoutMs(): number {
    return this.deadlines.timeoutMs
  }

  /**
   * Answer every later call within `timeoutMs` or reject with `ERR_FLOODGATE_REDIS_TIMEOUT`: the limiter's
   * `storeTimeout`, given when a limiter is created over this store. Several limiters: the shortest.
   */
  answerWithin(timeoutMs: number): void {
    if (this.bound !== undefined && this.bound <= timeoutMs) return
    this.bound = timeoutMs
    this.deadlines.bound(timeoutMs)
  }

  /** The Redis key holding `key`'s state for `algorithm` (see `redisKey`). */
  keyOf(algorithm: Algorithm, key: string): string {
    return this.rkeys.of(algorithm, key)
  }

  consume(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<RedisDecision> {
    const rkey = this.rkeys.of(algorithm, key)
    const blocks = this.blocks
    const sentAt = blocks ? (now !== undefined ? now : performance.now()) : 0
    if (blocks) {
      const cached = blocks.get(rkey, algorithm, cost, sentAt, now !== undefined)
      if (cached) {
        this.metrics?.blockCacheHit()
        return Promise.resolve(cached)
      }
    }
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    const items = [{ algorithm, key, cost }]
    return new Promise((resolve, reject) =>
      this.batches.add({
        operation: 'consume',
        items,
        keys: [rkey],
        banKeys: undefined,
        now,
        sentAt,
        resolve: resolve as Waiting['resolve'],
        reject,
      }),
    )
  }

  peek(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<RedisDecision> {
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    return this.calls.one('peek', this.rkeys.of(algorithm, key), algorithm, cost, now).then((settled) => {
      const decision = readSettled(settled, parseReply, algorithm)
      if (decision instanceof CallFailure) throw this.failed('peek', decision, key)
      return decision
    })
  }

  /** Give units back. Rejects with a `RedisStoreError` when Redis cannot take them (reported to `onError`). */
  refund(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<void> {
    const rkey = this.rkeys.of(algorithm, key)
    this.blocks?.delete(rkey)
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    return this.calls.one('refund', rkey, algorithm, cost, now).then((settled) => {
      if (settled instanceof CallFailure) throw this.failed('refund', settled, key)
    })
  }

  /**
   * Give back the units of `lease` (a `concurrency` decision's), atomically: exactly that lease's units, if
   * still held, whichever server asks; a lease released twice, or after it expired, frees nothing. Rejects
   * with a `RedisStoreError` when Redis cannot take it (reported to `onError`); the lease then expires.
   */
  release(algorithm: Algorithm, key: string, lease: string, _now?: number): Promise<void> {
    if (algorithm.kind !== 'concurrency' || !LEASE.test(lease)) return Promise.resolve() // not one of ours
    const rkey = this.rkeys.of(algorithm, key)
    this.blocks?.delete(rkey)
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    return this.calls.release(rkey, lease).then((settled) => {
      if (settled instanceof CallFailure) throw this.failed('refund', settled, key)
    })
  }

  /**
   * Spend `cost` units of `key` whatever the limit says (a settled cost above its estimate): the key may go
   * over its limit, so that its next requests wait (see `Algorithm.charge`). Per key, so it works the same on
   * a Cluster. Rejects with a `RedisStoreError` when Redis cannot take it (reported to `onError`).
   */
  charge(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<void> {
    const rkey = this.rkeys.of(algorithm, key)
    this.blocks?.delete(rkey)
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    return this.calls.one('charge', rkey, algorithm, cost, now).then((settled) => {
      if (settled instanceof CallFailure) throw this.failed('charge', settled, key)
    })
  }

  /** Forget `key` (in Redis and in the block cache). Rejects with a `RedisStoreError` when Redis fails. */
  async reset(algorithm: Algorithm, key: string): Promise<void> {
    const rkey = this.rkeys.of(algorithm, key)
    this.blocks?.delete(rkey)
    const settled = await this.calls.del(rkey)
    if (settled instanceof CallFailure) throw this.failed('reset', settled, key)
  }

  /**
   * Lift the ban on `key` and forget the refusals counted toward one (one DEL of its ban's Redis key): every
   * server sharing this Redis sees it at once, except one whose own block cache holds the ban (`blockCache`),
   * which refuses the key locally until the ban would have ended. Rejects with a `RedisStoreError` when Redis
   * fails.
   */
  async unban(key: string): Promise<void> {
    const rkey = this.rkeys.banOf(key)
    this.blocks?.deleteBan(rkey)
    const settled = await this.calls.del(rkey)
    if (settled instanceof CallFailure) throw this.failed('reset', settled, key)
  }

  /**
   * Decide several policies as one: all are consumed or none. An item with a `ban` is checked and counted in
   * the same script call (see `Store.unban`); a banned key kept in the block cache is refused locally. On a standalone Redis one script does it
   * atomically. On a Cluster, the items of each slot are one atomic script, and slots are decided in the
   * order given: when a later slot refuses, what earlier slots took is given back (core's handler puts the
   * narrowest policies first, so a refused request holds quota only in its own caller's buckets, for a moment).
   * Keys from core put one caller's policies on one slot.
   */
  consumeAll(items: readonly ConsumeItem[], now?: number): Promise<Decision[]> {
    const count = items.length
    if (count === 0) return Promise.resolve([])
    if (count === 1 && this.blocks && items[0]!.ban !== undefined) {
      // A banned key kept in the block cache is refused here, with no round trip, until its ban ends.
      const item = items[0]!
      const ms = this.blocks.bannedFor(
        this.rkeys.banOf(item.key),
        now !== undefined ? now : performance.now(),
        now !== undefined,
      )
      if (ms > 0) {
        this.metrics?.blockCacheHit()
        const decision: RedisDecision = {
          ...bannedDecision(item.algorithm, ms, false),
          source: 'block-cache',
        }
        return Promise.resolve([decision])
      }
    }
    const keys: string[] = new Array(count)
    for (let i = 0; i < count; i++) keys[i] = this.rkeys.of(items[i]!.algorithm, items[i]!.key)
    if (this.calls.isCluster) {
      const groups = slotGroups(keys)
      if (groups.length > 1) {
        return consumeInGroups({
          store: this,
          items,
          groups,
          consumeGroup: (group, indices) =>
            this.consumeOneSlot(
              group,
              indices.map((i) => keys[i]!),
              now,
            ),
          now,
        })
      }
    }
    return this.consumeOneSlot(items, keys, now)
  }

  /** The settings document `name` (a limiter's runtime overrides), from Redis. */
  async readSettings(name: string): Promise<StoreSettings> {
    return (await this.readSettingsSince(name, undefined))!
  }

  /** Set (or delete, with `undefined`) one field of the settings document `name`, atomically with its version. */
  async writeSettings(name: string, field: string, value: string | undefined): Promise<StoreSettings> {
    const args = value === undefined ? [field, '0', ''] : [field, '1', value]
    const settled = await this.runner.run(SETTINGS_WRITE, 1, [this.settingsKey(name), ...args])
    if (settled instanceof CallFailure) throw this.failed('settings', settled, name)
    const settings = settingsOf(settled)!
    this.poller.written(name, settings)
    return settings
  }

  /** Watch the settings document `name`: read now, then every `settingsInterval` while watched (until `close`). */
  watchSettings(name: string, watcher: SettingsWatcher): () => void {
    return this.poller.watch(name, watcher)
  }

  /** The document, or `undefined` when its version is still `known`. */
  private async readSettingsSince(
    name: string,
    known: number | undefined,
  ): Promise<StoreSettings | undefined> {
    const settled = await this.runner.run(SETTINGS_READ, 1, [
      this.settingsKey(name),
      known === undefined ? '' : String(known),
    ])
    if (settled instanceof CallFailure) throw this.failed('settings', settled, name)
    return settingsOf(settled)
  }

  /** The Redis key of a settings document: `prefix:{settings:name}`, a hash (never a key of an algorithm's state). */
  private settingsKey(name: string): string {
    return `${this.prefix}:{${partitionOf(`settings:${name}`)}}`
  }

  /** Drop the block cache and stop reading settings. The client is yours: the store never closes it. */
  close(): void {
    this.poller.close()
    this.blocks?.clear()
    this.metrics?.close()
  }

  /** Decide items whose keys share one slot as one, in this tick's batch. */
  private consumeOneSlot(
    items: readonly ConsumeItem[],
    keys: readonly string[],
    now: number | undefined,
  ): Promise<Decision[]> {
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    const sentAt = now !== undefined ? now : performance.now()
    let banKeys: (string | undefined)[] | undefined
    for (let i = 0; i < items.length; i++) {
      const key = items[i]!.ban === undefined ? undefined : this.rkeys.banOf(items[i]!.key)
      if (key !== undefined) banKeys ??= new Array(items.length).fill(undefined)
      if (banKeys !== undefined) banKeys[i] = key
    }
    return new Promise((resolve, reject) =>
      this.batches.add({
        operation: 'consumeAll',
        items,
        keys,
        banKeys,
        now,
        sentAt,
        resolve: resolve as Waiting['resolve'],
        reject,
      }),
    )
  }

  /**
   * Answer a request with its decisions, `decided[from]` onward (a refusal is remembered in the block cache),
   * or, when its batch call failed or its reply is unreadable, reject it with the `RedisStoreError` (reported
   * once per request).
   */
  private readonly answer = (
    waiting: Waiting,
    decided: readonly RedisDecision[] | CallFailure,
    from: number,
  ): void => {
    const { operation, items, keys, now, sentAt } = waiting
    if (decided instanceof CallFailure) {
      waiting.reject(this.failed(operation, decided, items[0]!.key))
      return
    }
    const injected = now !== undefined
    if (operation === 'consume') {
      const { algorithm, cost } = items[0]!
      const decision = decided[from]!
      if (!decision.allowed && this.blocks)
        this.blocks.add(keys[0]!, algorithm, cost, decision, sentAt, injected)
      waiting.resolve(decision)
    } else {
      const decisions =
        from === 0 && decided.length === items.length ? decided : decided.slice(from, from + items.length)
      this.blocks?.addRefusals(keys, items, decisions, sentAt, injected, waiting.banKeys)
      waiting.resolve(decisions as RedisDecision[])
    }
  }

  /**
   * Report a failure (a timeout or a connection error, anything but an error reply, opens the circuit) and
   * give the error to reject with.
   */
  private failed(operation: RedisStoreErrorEvent['operation'], failure: CallFailure, key: string): Error {
    this.reportFailure(failure, { operation, key, timedOut: failure.timedOut })
    return storeErrorOf(failure)
  }
}

/** A settings script's reply: `[version]` (unchanged), or `[version, [field, value, ...]]`. */
function settingsOf(reply: unknown): StoreSettings | undefined {
  const [version, flat] = reply as [unknown, unknown[] | undefined]
  if (flat === undefined) return undefined
  const fields: Record<string, string> = {}
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const field = String(flat[i])
    if (field !== '#version') fields[field] = String(flat[i + 1])
  }
  return { version: Number(String(version)), fields }
}
