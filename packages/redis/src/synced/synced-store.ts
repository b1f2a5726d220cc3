import type { Algorithm, ConsumeItem, Decision, Store } from '@floodgate/core'
import { type CallFailure, Circuit, cachedClock, consumeInGroups } from '@floodgate/core/internal'
import { ScriptRunner } from '../script-runner.js'
import type { RedisStore } from '../store.js'
import { type AllowanceParts, allowanceOf, nearLimit } from './allowance.js'
import { Fleet } from './fleet.js'
import { KeyTable } from './key-table.js'
import {
  type ParsedSyncedOptions,
  parseSyncedOptions,
  type SyncedStoreOptions,
  unrefTimers,
} from './options.js'
import { ServerClock } from './server-clock.js'
import { SyncLoop } from './sync-loop.js'
import { emptyStats, type SyncStats } from './sync-stats.js'
import { type SyncedDecision, tagged } from './synced-decision.js'
import type { SyncedKey } from './synced-key.js'
import { windowKindOf, windowStart } from './window-kinds.js'

/** After a failed sync, how long (ms) Redis is left alone before the next try (once the client is connected). */
const RETRY_AFTER_FAILURE_MS = 1000
/** How long (in sync intervals, at least 5 s) a process that stopped syncing is still counted. */
const FLEET_HORIZON_SYNCS = 20
const FLEET_HORIZON_MIN_MS = 5000
/** How many decisions may use one reading of whether Redis is reachable. */
const ONLINE_CHECK_EVERY = 64

/**
 * Counts locally and keeps an approximate shared total in Redis: a global limit at in-memory speed.
 *
 * Each process decides from the last total it read plus its own counts since, and sends its counts for every
 * key it used once per `syncEvery`, reading the new totals back (one script call per Cluster slot). Each sync
 * grants the process an allowance of `1/P` of what the total left (P processes); a request the allowance does
 * not cover is refused until the next sync, or, once the total is within `exactWithin` of the limit, decided
 * by the RedisStore's script. The worst-case overshoot is stated in `docs/redis.md`. Runs the window
 * algorithms (`fixedWindow`, `slidingWindowCounter`); others are refused with a `RateLimitConfigError`.
 *
 * @example
 * const store = new SyncedStore({ store: new RedisStore({ client }), syncEvery: '50ms' })
 * app.use(rateLimit({ limit: 1000, window: '1m', store }))
 */
export class SyncedStore implements Store {
  /** The RedisStore holding the shared totals. */
  readonly store: RedisStore
  readonly syncEveryMs: number
  readonly exactWithin: number
  readonly offline: ParsedSyncedOptions['offline']
  private readonly keys: KeyTable
  private readonly resets = new Map<string, Promise<void>>()
  private readonly local: () => number
  private readonly serverClock: ServerClock
  private readonly circuit: Circuit
  private readonly fleet: Fleet
  private readonly loop: SyncLoop
  private readonly runner: ScriptRunner
  private readonly onError: ParsedSyncedOptions['onError']
  private readonly counters = emptyStats()
  private lastNow: number | undefined
  private onlineNow = true
  private onlineChecks = 0
  private closed = false

  constructor(options: SyncedStoreOptions) {
    const o = parseSyncedOptions(options)
    this.store = o.store
    this.syncEveryMs = o.syncEvery
    this.exactWithin = o.exactWithin
    this.offline = o.offline
    this.keys = new KeyTable(o.store, o.maxKeys)
    this.onError = o.onError
    this.local = (o.clock as (() => number) | undefined) ?? cachedClock()
    this.serverClock = new ServerClock(this.local)
    this.runner = new ScriptRunner(this.store.client, this.store.timeoutMs)
    this.circuit = new Circuit(this.runner, RETRY_AFTER_FAILURE_MS)
    this.fleet = new Fleet(
      `${this.store.prefix}:{synced}:processes`,
      o.processes === 'auto' ? undefined : o.processes,
      Math.max(FLEET_HORIZON_MIN_MS, FLEET_HORIZON_SYNCS * this.syncEveryMs),
    )
    this.loop = new SyncLoop({
      runner: this.runner,
      syncEveryMs: this.syncEveryMs,
      timers: o.timers ?? unrefTimers,
      local: this.local,
      serverClock: this.serverClock,
      scriptNow: () => this.lastNow,
      fleet: this.fleet,
      online: () => this.online(),
      failed: (failure, keys) => this.failed(failure, keys),
      stats: this.counters,
    })
    if (this.fleet.counting) void this.loop.heartbeat()
  }

  /** How many processes each allowance is shared with: the `processes` option, or the count in Redis. */
  get processes(): number {
    return this.fleet.processes
  }

  /** What the store has done so far (a copy). */
  get stats(): SyncStats & { keys: number; processes: number } {
    return { ...this.counters, keys: this.keys.size, processes: this.processes }
  }

  /** Throw the `RateLimitConfigError` a SyncedStore gives for an algorithm it cannot count (a bucket, GCRA, the log). */
  checkAlgorithm(algorithm: Algorithm): void {
    windowKindOf(algorithm)
  }

  consume(
    algorithm: Algorithm,
    key: string,
    cost: number,
    now?: number,
  ): SyncedDecision | Promise<SyncedDecision> {
    // The common case first: a key this process holds and has read.
    const known = this.closed ? undefined : this.keys.find(algorithm, key)
    if (known !== undefined && known.readAt !== Number.NEGATIVE_INFINITY) {
      return this.decide(known, cost, now, this.online())
    }
    if (this.closed) return this.store.consume(algorithm, key, cost, now) as Promise<SyncedDecision>
    const entry = this.entry(algorithm, key)
    if (entry instanceof Promise) return entry.then(() => this.consume(algorithm, key, cost, now))
    const online = this.online()
    if (!online || this.wasRead(entry)) return this.decide(entry, cost, now, online)
    this.counters.waited++
    return this.loop.read(entry).then(() =>
      // A key reset or forgotten meanwhile starts over.
      entry.detached
        ? this.consume(algorithm, key, cost, now)
        : this.decide(entry, cost, now, this.online() && this.wasRead(entry)),
    )
  }

  /** Atomic over all items when every one can be decided locally; otherwise one by one, giving back on a refusal. */
  consumeAll(items: readonly ConsumeItem[], now?: number): Decision[] | Promise<Decision[]> {
    const local = this.closed ? undefined : this.consumeAllLocally(items, now)
    if (local) return local
    return consumeInGroups({
      store: this,
      items,
      groups: items.map((_, i) => [i]),
      consumeGroup: ([item]) =>
        Promise.resolve(this.consume(item!.algorithm, item!.key, item!.cost, now)).then((d) => [d]),
      now,
    })
  }

  peek(
    algorithm: Algorithm,
    key: string,
    cost: number,
    now?: number,
  ): SyncedDecision | Promise<SyncedDecision> {
    if (this.closed) return this.store.peek(algorithm, key, cost, now) as Promise<SyncedDecision>
    const entry = this.entry(algorithm, key)
    if (entry instanceof Promise) return entry.then(() => this.peek(algorithm, key, cost, now))
    const decide = () => {
      this.loop.enqueue(entry)
      const source = this.wasRead(entry) && this.online() ? 'local' : 'offline'
      return tagged(algorithm.peek(entry.slab.data, entry.at, this.timeOf(now), cost), source)
    }
    if (this.wasRead(entry) || !this.online()) return decide()
    this.counters.waited++
    return this.loop
      .read(entry)
      .then(() => (entry.detached ? this.peek(algorithm, key, cost, now) : decide()))
  }

  /** Give units back locally (sent with the next sync); a key this process does not hold is refunded in Redis. */
  refund(algorithm: Algorithm, key: string, cost: number, now?: number): void | Promise<void> {
    const entry = this.closed ? undefined : this.keys.find(algorithm, key)
    if (!entry) return this.store.refund(algorithm, key, cost, now)
    const t = this.timeOf(now)
    const start = windowStart(t, entry.windowMs)
    const { at } = entry
    const view = entry.slab.data
    const before = view[at] === start ? view[at + 1]! : 0
    algorithm.refund(view, at, t, cost)
    const given = before - (view[at] === start ? view[at + 1]! : 0)
    if (given > 0) {
      entry.refunded(start, given)
      this.loop.enqueue(entry)
    }
  }

  /**
   * Forget `key` here and in Redis (the shared total too), after the sync in flight has landed so that it cannot
   * write the key again. Counts other processes have not sent yet still arrive. Rejects when Redis fails.
   */
  async reset(algorithm: Algorithm, key: string): Promise<void> {
    const entry = this.keys.find(algorithm, key)
    if (entry) this.keys.forget(entry)
    const rkey = this.store.keyOf(algorithm, key)
    const done = this.loop.landed().then(() => this.store.reset(algorithm, key))
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

  /** Send every count not sent yet, leave the process count, and stop syncing. Later calls go to the RedisStore. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.loop.stop()
    await this.loop.sync()
    if (this.fleet.counting && this.online()) await this.loop.heartbeat('leave')
    this.keys.clear()
    await this.store.close()
  }

  /** Send every count not sent yet and read the totals back, now. Never rejects. */
  sync(): Promise<void> {
    return this.loop.sync()
  }

  /** The key's entry, created when this process does not hold it yet; a promise while the key is being reset. */
  private entry(algorithm: Algorithm, key: string): SyncedKey | Promise<void> {
    const found = this.keys.find(algorithm, key)
    if (found) return found
    windowKindOf(algorithm) // an algorithm it cannot count is refused before anything else
    const rkey = this.keys.redisKey(algorithm, key)
    return this.resets.get(rkey) ?? this.keys.create(algorithm, key, rkey)
  }

  /**
   * Whether `entry` may be decided from what it knows: it has been read once. A key used again after a pause is
   * decided from its last read (at most one allowance, as always) and read again at the next sync; waiting for
   * a read there would make a busy process slower the busier it gets.
   */
  private wasRead(entry: SyncedKey): boolean {
    return entry.readAt !== Number.NEGATIVE_INFINITY
  }

  /** Whether Redis may be called: asked of the circuit once every 64 decisions (and after every failure). */
  private online(): boolean {
    if (this.onlineChecks-- > 0) return this.onlineNow
    this.onlineChecks = ONLINE_CHECK_EVERY
    this.onlineNow = this.circuit.allows() && !this.store.degraded
    return this.onlineNow
  }

  /** The decision time: the limiter's when it passes one, else the Redis server's clock as estimated here. */
  private timeOf(now: number | undefined): number {
    if (now === undefined) return this.serverClock.now()
    this.lastNow = now
    return now
  }

  private allowanceParts(online: boolean): AllowanceParts {
    return { online, exactWithin: this.exactWithin, offline: this.offline, processes: this.processes }
  }

  /** Decide from what `entry` knows; `online`: Redis is reachable and the key was read recently. */
  private decide(
    entry: SyncedKey,
    cost: number,
    now: number | undefined,
    online: boolean,
  ): SyncedDecision | Promise<SyncedDecision> {
    const { algorithm } = entry
    const t = now === undefined ? this.serverClock.now() : this.timeOf(now)
    if (!entry.queued) this.loop.enqueue(entry)
    if (
      cost <= entry.budget &&
      t >= entry.budgetStart &&
      t < entry.budgetEnd &&
      online === entry.budgetOnline &&
      entry.budgetProcesses === this.fleet.processes
    ) {
      // The allowance, as last computed in this window, still covers it.
      const decision = algorithm.consume(entry.slab.data, entry.at, t, cost)
      if (decision.allowed) entry.admittedInBudget(cost)
      if (online) {
        this.counters.local++
        return decision
      }
      this.counters.offline++
      return tagged(decision, 'offline')
    }
    const source = online ? 'local' : 'offline'
    const start = windowStart(t, entry.windowMs)
    const cap = allowanceOf(entry, t, start, this.allowanceParts(online))
    entry.setBudget(start, cap - entry.unackedAt(start), online, this.processes)
    if (entry.unackedAt(start) + cost <= cap) {
      const decision = algorithm.consume(entry.slab.data, entry.at, t, cost)
      if (decision.allowed) entry.admitted(start, cost)
      this.counters[source]++
      return tagged(decision, source)
    }
    const view = algorithm.peek(entry.slab.data, entry.at, t, cost)
    // Near the limit Redis decides; elsewhere the allowance is spent until the next sync.
    if (view.allowed && online && nearLimit(entry, t, cost, cap, this.exactWithin)) {
      return this.decideInRedis(entry, cost, now, t)
    }
    this.counters[source]++
    if (!view.allowed) return tagged(view, source)
    // The view has room but this process's share is spent: it grows again at the next sync (online) or in
    // the next window (offline).
    const retryAfterMs = online ? Math.ceil(this.syncEveryMs) : Math.ceil(start + entry.windowMs - t)
    return tagged({ ...view, allowed: false, remaining: 0, retryAfterMs }, source)
  }

  /** Near the limit: the RedisStore's script decides; a failure there is decided locally instead. */
  private decideInRedis(
    entry: SyncedKey,
    cost: number,
    now: number | undefined,
    t: number,
  ): Promise<SyncedDecision> {
    const { algorithm } = entry
    this.counters.exact++
    return this.store.consume(algorithm, entry.key, cost, now).then(
      (decision) => {
        if (entry.detached) return decision as SyncedDecision // reset or forgotten meanwhile: Redis decided
        if (decision.source !== 'redis' && decision.source !== 'block-cache') {
          this.counters.exact--
          return this.decide(entry, cost, now, false)
        }
        if (!decision.allowed) return decision as SyncedDecision
        const start = windowStart(t, entry.windowMs)
        entry.admittedInRedis(start, cost)
        const local = algorithm.consume(entry.slab.data, entry.at, t, cost)
        if (!local.allowed) entry.kind.merge(entry.slab.data, entry.at, start, cost, entry.windowMs)
        return tagged(local.allowed ? local : decision, decision.source)
      },
      () => {
        this.counters.exact--
        return entry.detached
          ? this.consume(algorithm, entry.key, cost, now)
          : this.decide(entry, cost, now, false)
      },
    )
  }

  /** Every item decided locally as one, or undefined when one of them needs Redis (or a read). */
  private consumeAllLocally(items: readonly ConsumeItem[], now: number | undefined): Decision[] | undefined {
    if (!this.online()) return undefined
    const entries: SyncedKey[] = []
    for (const item of items) {
      const entry = this.entry(item.algorithm, item.key)
      if (entry instanceof Promise || !this.wasRead(entry) || entries.includes(entry)) return undefined
      entries.push(entry)
    }
    const t = this.timeOf(now)
    const starts = entries.map((entry) => windowStart(t, entry.windowMs))
    const fits = entries.every(
      (entry, i) =>
        entry.unackedAt(starts[i]!) + items[i]!.cost <=
        allowanceOf(entry, t, starts[i]!, this.allowanceParts(true)),
    )
    if (!fits) return undefined
    const peeks = entries.map((entry, i) =>
      entry.algorithm.peek(entry.slab.data, entry.at, t, items[i]!.cost),
    )
    for (const entry of entries) this.loop.enqueue(entry)
    this.counters.local += entries.length
    if (!peeks.every((d) => d.allowed)) return peeks.map((d) => tagged(d, 'local'))
    return entries.map((entry, i) => {
      const decision = entry.algorithm.consume(entry.slab.data, entry.at, t, items[i]!.cost)
      entry.admitted(starts[i]!, items[i]!.cost)
      return tagged(decision, 'local')
    })
  }

  private failed(failure: CallFailure, keys: number): void {
    if (failure.outage) this.circuit.trip()
    this.onlineChecks = 0
    if (!this.onError) return
    const error = failure.error instanceof Error ? failure.error : new Error(String(failure.error))
    try {
      this.onError(error, { keys, timedOut: failure.timedOut })
    } catch {
      // onError must not throw; a throwing hook must not break the sync loop.
    }
  }
}
