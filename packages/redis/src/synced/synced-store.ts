import {
  type Algorithm,
  type ConsumeItem,
  type Decision,
  RateLimitConfigError,
  type Store,
} from '@floodgate/core'
import {
  cachedClock,
  consumeInGroups,
  type SettingsWatcher,
  type StoreSettings,
} from '@floodgate/core/internal'
import { ScriptRunner } from '../script-runner.js'
import type { RedisStore } from '../store.js'
import { storeMetricsOf } from '../store-metrics-of.js'
import { DecisionClock } from './decision-clock.js'
import { type Fleet, fleetOf } from './fleet.js'
import { decideCovered } from './key-slab.js'
import { KeyTable } from './key-table.js'
import { LocalDecider } from './local-decider.js'
import {
  type ParsedSyncedOptions,
  parseSyncedOptions,
  type SyncedStoreOptions,
  unrefTimers,
} from './options.js'
import { Reachability } from './reachability.js'
import { type ServerClock, serverClock } from './server-clock.js'
import { SyncLoop } from './sync-loop.js'
import { emptyStats, type SyncStats } from './sync-stats.js'
import { type SyncedDecision, tagged } from './synced-decision.js'
import type { SyncedKey } from './synced-key.js'
import { windowKindOf } from './window-kinds.js'

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
  private readonly serverClock: ServerClock
  private readonly clock: DecisionClock
  private readonly reach: Reachability
  private readonly fleet: Fleet
  private readonly loop: SyncLoop
  private readonly decider: LocalDecider
  private readonly counters = emptyStats()
  private closed = false

  constructor(options: SyncedStoreOptions) {
    const o = parseSyncedOptions(options)
    this.store = o.store
    this.syncEveryMs = o.syncEvery
    this.exactWithin = o.exactWithin
    this.offline = o.offline
    this.keys = new KeyTable(o.store, o.maxKeys)
    const local = (o.clock as (() => number) | undefined) ?? cachedClock()
    this.serverClock = serverClock(local)
    this.clock = new DecisionClock(this.serverClock)
    const runner = new ScriptRunner(this.store.client, this.store.deadlines)
    this.fleet = fleetOf(this.store.prefix, o.processes, this.syncEveryMs)
    // Decisions on a slab alone read the shares from the slab: they are pushed there as they change.
    this.keys.setShares(this.fleet.shares)
    this.fleet.onShares = (shares) => this.keys.setShares(shares)
    // Syncs are reported through the wrapped RedisStore's metrics, when it has them.
    const metrics = storeMetricsOf.get(this.store)
    this.reach = new Reachability({ runner, store: this.store, metrics, onError: o.onError })
    this.loop = new SyncLoop({
      runner,
      syncEveryMs: this.syncEveryMs,
      timers: o.timers ?? unrefTimers,
      local,
      clock: this.clock,
      fleet: this.fleet,
      online: () => this.reach.online(),
      timing: metrics?.histogramOf('sync'),
      failed: (failure, keys) => this.reach.failed(failure, keys),
      read: (entry) => this.decider.prepare(entry),
      stats: this.counters,
    })
    this.decider = new LocalDecider({
      store: this.store,
      syncEveryMs: this.syncEveryMs,
      exactWithin: this.exactWithin,
      offline: this.offline,
      fleet: this.fleet,
      loop: this.loop,
      stats: this.counters,
      clock: this.clock,
      again: (algorithm, key, cost, now) => this.consume(algorithm, key, cost, now),
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
    if (algorithm.kind === 'concurrency') {
      throw new RateLimitConfigError(
        'ERR_FLOODGATE_INVALID_OPTION',
        'SyncedStore.algorithm',
        algorithm.kind,
        'fixedWindow(...) or slidingWindowCounter(...): a SyncedStore decides from a local share of the quota, so ' +
          'it cannot hold leases that every server sees and gives back exactly once; use a RedisStore (or a ' +
          'PostgresStore) for concurrency',
      )
    }
    windowKindOf(algorithm)
  }

  /**
   * Bound every call to Redis (decisions near the limit, syncs, reads) by `timeoutMs`: the limiter's
   * `storeTimeout`, set on the wrapped RedisStore (see `RedisStore.answerWithin`). A decision whose call to
   * Redis fails is taken locally, by the offline share: the SyncedStore answers, it does not reject.
   */
  answerWithin(timeoutMs: number): void {
    this.store.answerWithin(timeoutMs)
  }

  consume(
    algorithm: Algorithm,
    key: string,
    cost: number,
    now?: number,
  ): SyncedDecision | Promise<SyncedDecision> {
    // The common case first: a key this process holds and has read, decided on its slab alone when its budget
    // covers the request. It creates no closure, so a call allocates no context for one (the closures of the
    // other cases would make every call allocate it).
    const slab = this.closed ? undefined : this.keys.slabOf(algorithm)
    const at = slab?.index.get(key)
    if (at !== undefined) {
      const t = now === undefined ? this.serverClock.now() : this.clock.time(now)
      // Whether Redis is reachable is not asked here: a budget made online covers what the key's last read left
      // this process, which a sync failing since does not change (the long way, once it is spent, sees the outage).
      const covered = decideCovered(slab!, at, algorithm, cost, t, this.clock.edge(now))
      if (covered) {
        this.counters.local++
        return covered
      }
      const entry = slab!.entryAt(at)
      if (entry.wasRead) return this.decider.decide(entry, cost, now, this.reach.online(), t)
    }
    return this.consumeSlowly(algorithm, key, cost, now)
  }

  /** A key this process does not hold or has not read yet, or a closed store. */
  private consumeSlowly(
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ): SyncedDecision | Promise<SyncedDecision> {
    if (this.closed) return this.store.consume(algorithm, key, cost, now) as Promise<SyncedDecision>
    const entry = this.keys.entry(algorithm, key)
    if (entry instanceof Promise) return entry.then(() => this.consume(algorithm, key, cost, now))
    const online = this.reach.online()
    if (!online || entry.wasRead) return this.decider.decide(entry, cost, now, online)
    this.counters.waited++
    return this.loop.read(entry).then(() =>
      // A key reset or forgotten meanwhile starts over.
      entry.detached
        ? this.consume(algorithm, key, cost, now)
        : this.decider.decide(entry, cost, now, this.reach.online() && entry.wasRead),
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
    const entry = this.keys.entry(algorithm, key)
    if (entry instanceof Promise) return entry.then(() => this.peek(algorithm, key, cost, now))
    const decide = () => {
      this.loop.enqueue(entry)
      const source = entry.wasRead && this.reach.online() ? 'local' : 'offline'
      return tagged(algorithm.peek(entry.slab.data, entry.at, this.clock.time(now), cost), source)
    }
    if (entry.wasRead || !this.reach.online()) return decide()
    this.counters.waited++
    return this.loop
      .read(entry)
      .then(() => (entry.detached ? this.peek(algorithm, key, cost, now) : decide()))
  }

  /** Give units back locally (sent with the next sync); a key this process does not hold is refunded in Redis. */
  refund(algorithm: Algorithm, key: string, cost: number, now?: number): void | Promise<void> {
    const entry = this.closed ? undefined : this.keys.find(algorithm, key)
    if (!entry) return this.store.refund(algorithm, key, cost, now)
    this.decider.refund(entry, cost, this.clock.time(now))
  }

  /**
   * Forget `key` here and in Redis (the shared total too), after the sync in flight has landed so that it cannot
   * write the key again. Counts other processes have not sent yet still arrive. Rejects when Redis fails.
   */
  async reset(algorithm: Algorithm, key: string): Promise<void> {
    const entry = this.keys.find(algorithm, key)
    if (entry) this.keys.forget(entry)
    const done = this.loop.landed().then(() => this.store.reset(algorithm, key))
    await this.keys.resetting(this.store.keyOf(algorithm, key), done)
  }

  /** The settings document `name` (a limiter's runtime overrides): kept in Redis by the RedisStore. */
  readSettings(name: string): Promise<StoreSettings> {
    return this.store.readSettings(name)
  }

  /** Set (or delete) one field of the settings document `name`, in Redis. */
  writeSettings(name: string, field: string, value: string | undefined): Promise<StoreSettings> {
    return this.store.writeSettings(name, field, value)
  }

  /** Watch the settings document `name` through the RedisStore (its `settingsInterval`). */
  watchSettings(name: string, watcher: SettingsWatcher): () => void {
    return this.store.watchSettings(name, watcher)
  }

  /** The RedisStore's `settingsInterval`, in ms. */
  get settingsIntervalMs(): number {
    return this.store.settingsIntervalMs
  }

  /** Send every count not sent yet, leave the process count, and stop syncing. Later calls go to the RedisStore. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.loop.stop()
    await this.loop.sync()
    if (this.fleet.counting && this.reach.online()) await this.loop.heartbeat('leave')
    this.keys.clear()
    await this.store.close()
  }

  /** Send every count not sent yet and read the totals back, now. Never rejects. */
  sync(): Promise<void> {
    return this.loop.sync()
  }

  /** Every item decided locally as one, or undefined when one of them needs Redis (or a read). */
  private consumeAllLocally(items: readonly ConsumeItem[], now: number | undefined): Decision[] | undefined {
    if (!this.reach.online()) return undefined
    const entries: SyncedKey[] = []
    for (const item of items) {
      const entry = this.keys.entry(item.algorithm, item.key)
      if (entry instanceof Promise || !entry.wasRead || entries.includes(entry)) return undefined
      entries.push(entry)
    }
    return this.decider.consumeAll(entries, items, this.clock.time(now), this.clock.edge(now))
  }
}
