import type { Algorithm, ConsumeItem, Decision, Store } from '@floodgate/core'
import {
  CallFailure,
  Circuit,
  createStoreMetrics,
  DEFAULT_STORE_TIMEOUT_MS,
  type Deadlines,
  failureReporter,
  readSettled,
  SettingsPoller,
  type SettingsWatcher,
  type StoreMetrics,
  type StoreSettings,
} from '@floodgate/core/internal'
import { circuitOpenError, storeErrorOf } from './errors.js'
import {
  lockTimeoutUnder,
  type ParsedOptions,
  type PostgresPool,
  type PostgresStoreErrorEvent,
  type PostgresStoreOptions,
  parseStoreOptions,
} from './options.js'
import { postgresDeadlines, QueryRunner } from './query-runner.js'
import { DEFAULT_MAX_BATCH_SIZE, PostgresBatches, type Waiting } from './same-tick-batches.js'
import { settingsStatements } from './sql/settings.js'
import { StoreCalls } from './store-calls.js'
import { storedKey } from './stored-key.js'
import { Sweeper } from './sweeper.js'
import type { CallSettings } from './wire.js'
import { type PostgresDecision, parseRow } from './wire.js'

/**
 * Rate-limit state in PostgreSQL, shared by every server: each decision is one statement, a call of a
 * PL/pgSQL function that locks the key's row, runs the algorithm's step and writes the result, atomically,
 * on the database's clock unless the limiter passes a time. The decisions asked for in one tick (one turn of
 * the event loop) go as one statement (`batch`), each decided on its own. The table and functions come from `migrate()`;
 * expired rows are swept in bounded batches. Every call answers within the limiter's `storeTimeout` or rejects
 * with a `PostgresStoreError` (at once while PostgreSQL is known to be down): the limiter's `failMode` then
 * decides.
 *
 * @example
 * await migrate(pool)
 * const store = new PostgresStore({ pool })
 * const limiter = createLimiter({ algorithm: slidingWindowCounter({ limit: 100, window: '1m' }), store, failMode: 'closed' })
 */
export class PostgresStore implements Store {
  readonly pool: PostgresPool
  readonly schema: string
  readonly table: string
  private readonly options: ParsedOptions
  private readonly deadlines: Deadlines
  /** The shortest bound a limiter set (`answerWithin`), if one did. */
  private bound: number | undefined
  private readonly settings: CallSettings
  private readonly circuit: Circuit
  private readonly calls: StoreCalls
  private readonly batches: PostgresBatches
  private readonly metrics: StoreMetrics | undefined
  private readonly reportFailure: (failure: CallFailure, event: PostgresStoreErrorEvent) => void
  private readonly sweeper: Sweeper | undefined
  /** Runs the settings statements; reads the watched settings documents every `settingsInterval`. */
  private readonly settingsRunner: QueryRunner
  private readonly settingsSql: ReturnType<typeof settingsStatements>
  private readonly poller: SettingsPoller
  /** How long a change of settings made elsewhere takes to reach this store's watches, at most (ms). */
  readonly settingsIntervalMs: number

  constructor(options: PostgresStoreOptions) {
    const parsed = parseStoreOptions(options)
    this.options = parsed
    this.pool = parsed.pool
    this.schema = parsed.schema
    this.table = parsed.table
    this.deadlines = postgresDeadlines(DEFAULT_STORE_TIMEOUT_MS)
    this.settings = {
      grace: parsed.expiryGraceMs,
      // Until a limiter sets the bound, the default's quarter (or the option, checked then).
      lockTimeout: String(parsed.lockTimeoutMs ?? lockTimeoutUnder(DEFAULT_STORE_TIMEOUT_MS, undefined)),
      durable: parsed.synchronousCommit,
    }
    this.circuit = new Circuit({}, parsed.cooldownMs)
    this.metrics = createStoreMetrics({
      sink: parsed.metrics,
      store: 'postgres',
      operations: ['consume', 'consume_all', 'peek', 'refund', 'charge', 'reset', 'sweep'],
      circuitOpen: () => this.circuit.open,
    })
    this.calls = new StoreCalls({
      pool: this.pool,
      location: { schema: parsed.schema, table: parsed.table },
      deadlines: this.deadlines,
      settings: this.settings,
      metrics: this.metrics,
    })
    const batch = parsed.batch
    const maxSize = batch === false ? 0 : batch === true ? DEFAULT_MAX_BATCH_SIZE : batch.maxSize
    this.batches = new PostgresBatches(this.calls, maxSize, this.answer)
    this.reportFailure = failureReporter({
      circuit: this.circuit,
      metrics: this.metrics,
      onError: parsed.onError,
    })
    const sweep = parsed.sweep
    this.sweeper =
      sweep === false
        ? undefined
        : new Sweeper(sweep.every, sweep.batch, (batch) =>
            this.circuit.allows() ? this.sweepOnce(batch) : Promise.resolve(undefined),
          )
    this.pool.on('error', this.onPoolError)
    const location = { schema: parsed.schema, table: parsed.table }
    this.settingsRunner = new QueryRunner(this.pool, location, this.deadlines)
    this.settingsSql = settingsStatements(location)
    this.settingsIntervalMs = parsed.settingsInterval
    this.poller = new SettingsPoller(
      (name, known) => this.readSettingsSince(name, known),
      parsed.settingsInterval,
    )
  }

  /** Whether calls are failing fast right now because PostgreSQL recently failed. */
  get degraded(): boolean {
    return this.circuit.open
  }

  /** The most a call waits for PostgreSQL, in ms: the limiter's `storeTimeout` (see `answerWithin`). */
  get timeoutMs(): number {
    return this.deadlines.timeoutMs
  }

  /** PostgreSQL's `lock_timeout` for every decision, in ms. */
  get lockTimeoutMs(): number {
    return Number(this.settings.lockTimeout)
  }

  /**
   * Answer every later call within `timeoutMs` or reject with `ERR_FLOODGATE_POSTGRES_TIMEOUT`: the limiter's
   * `storeTimeout`, given when a limiter is created over this store (several limiters: the shortest). Throws a
   * `RateLimitConfigError` when `lockTimeoutMs` is not below half of it.
   */
  answerWithin(timeoutMs: number): void {
    if (this.bound !== undefined && this.bound <= timeoutMs) return
    const lockTimeout = lockTimeoutUnder(timeoutMs, this.options.lockTimeoutMs)
    this.bound = timeoutMs
    this.deadlines.bound(timeoutMs)
    this.settings.lockTimeout = String(lockTimeout)
  }

  /** The key as the table stores it (see `storedKey`): itself, or a hash of a very long or odd one. */
  keyOf(key: string): string {
    return storedKey(key)
  }

  consume(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<PostgresDecision> {
    this.sweeper?.note(1)
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    const items = [{ algorithm, key, cost }]
    return new Promise((resolve, reject) =>
      this.batches.add({ operation: 'consume', items, now, resolve: resolve as Waiting['resolve'], reject }),
    )
  }

  /** A decision without consuming, in a statement of its own. */
  peek(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<PostgresDecision> {
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    return this.calls.decide('peek', algorithm, key, cost, now).then((settled) => {
      const decision = readSettled(settled, (rows) => parseRow((rows as unknown[])[0], algorithm))
      if (decision instanceof CallFailure) throw this.failed('peek', decision, key)
      return decision
    })
  }

  /** Give units back. Rejects with a `PostgresStoreError` when PostgreSQL cannot take them (reported to `onError`). */
  refund(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<void> {
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    return this.calls.decide('refund', algorithm, key, cost, now).then((settled) => {
      if (settled instanceof CallFailure) throw this.failed('refund', settled, key)
    })
  }

  /**
   * Give back the units of `lease` (a `concurrency` decision's), in one statement on the key's locked row:
   * exactly that lease's units, if still held, whichever server asks; a lease released twice, or after it
   * expired, frees nothing. Rejects with a `PostgresStoreError` when PostgreSQL cannot take it (reported to
   * `onError`); the lease then expires.
   */
  release(algorithm: Algorithm, key: string, lease: string, now?: number): Promise<void> {
    const number = Number(lease)
    if (algorithm.kind !== 'concurrency' || !/^\d{1,16}$/.test(lease) || !Number.isSafeInteger(number))
      return Promise.resolve() // not one of ours
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    return this.calls.decide('release', algorithm, key, number, now).then((settled) => {
      if (settled instanceof CallFailure) throw this.failed('refund', settled, key)
    })
  }

  /**
   * Spend `cost` units of `key` whatever the limit says (a settled cost above its estimate): the key may go
   * over its limit, so that its next requests wait (see `Algorithm.charge`). Needs migration 3 or later.
   * Rejects with a `PostgresStoreError` when PostgreSQL cannot take it (reported to `onError`).
   */
  charge(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<void> {
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    return this.calls.decide('charge', algorithm, key, cost, now).then((settled) => {
      if (settled instanceof CallFailure) throw this.failed('charge', settled, key)
    })
  }

  /** Forget `key`. Rejects with a `PostgresStoreError` when PostgreSQL fails. */
  async reset(algorithm: Algorithm, key: string): Promise<void> {
    const settled = await this.calls.reset(algorithm, key)
    if (settled instanceof CallFailure) throw this.failed('reset', settled, key)
  }

  /**
   * Lift the ban on `key` and forget the refusals counted toward one (its ban's row is deleted): every server
   * sharing the database sees it at once. Rejects with a `PostgresStoreError` when PostgreSQL fails. Bans need
   * migration 4 (`migrate()` again after upgrading).
   */
  async unban(key: string): Promise<void> {
    const settled = await this.calls.unban(key)
    if (settled instanceof CallFailure) throw this.failed('reset', settled, key)
  }

  /**
   * Decide several policies as one, in one statement (shared with the tick's other decisions, see `batch`):
   * every key's row is locked (in one order, so requests never deadlock), every item is peeked, and all are
   * consumed only when all would pass. A refused request spends nothing, and no other request sees anything
   * spent in between. Items with a `ban` are checked and counted in the same statement (see `Store.unban`).
   */
  consumeAll(items: readonly ConsumeItem[], now?: number): Promise<Decision[]> {
    if (items.length === 0) return Promise.resolve([])
    this.sweeper?.note(items.length)
    if (!this.circuit.allows()) return Promise.reject(circuitOpenError())
    return new Promise((resolve, reject) =>
      this.batches.add({
        operation: 'consumeAll',
        items,
        now,
        resolve: resolve as Waiting['resolve'],
        reject,
      }),
    )
  }

  /**
   * Delete up to `batch` expired rows (the longest expired first; rows a decision holds are skipped, the table
   * is never locked); resolves with how many were deleted. Rejects when PostgreSQL fails. The store also
   * sweeps by itself as decisions are made (the `sweep` option).
   *
   * @example await store.sweep({ batch: 10_000 })
   */
  async sweep(options: { batch?: number } = {}): Promise<number> {
    const batch = options.batch ?? (this.options.sweep === false ? 1000 : this.options.sweep.batch)
    if (!Number.isSafeInteger(batch) || batch < 1) {
      throw new RangeError(`Expected \`batch\` to be a whole number >= 1, got ${String(batch)}`)
    }
    const settled = await this.calls.sweep(batch)
    if (settled instanceof CallFailure) throw this.failed('sweep', settled, '')
    return Number((settled as unknown[][])[0]?.[0] ?? 0)
  }

  /** Stop listening to the pool and wait for a sweep in progress. The pool is yours: the store never ends it. */
  /** The settings document `name` (a limiter's runtime overrides), from the settings table. */
  async readSettings(name: string): Promise<StoreSettings> {
    return (await this.readSettingsSince(name, undefined))!
  }

  /** Set (or delete, with `undefined`) one field of the settings document `name`, with its version, in one statement. */
  async writeSettings(name: string, field: string, value: string | undefined): Promise<StoreSettings> {
    const written = await this.settingsRunner.run(this.settingsSql.write, [
      name,
      field,
      value ?? '',
      value !== undefined,
    ])
    if (written instanceof CallFailure) throw this.failed('settings', written, name)
    const settings = (await this.readSettingsSince(name, undefined))!
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
    const settled = await this.settingsRunner.run(this.settingsSql.read, [
      name,
      known === undefined ? '' : String(known),
    ])
    if (settled instanceof CallFailure) throw this.failed('settings', settled, name)
    const rows = settled as [string, string][]
    let version = 0
    const fields: Record<string, string> = {}
    for (const [field, value] of rows) {
      if (field === '#version') version = Number(value)
      else fields[field] = value
    }
    if (known !== undefined && version === known && rows.length <= 1) return undefined
    return { version, fields }
  }

  async close(): Promise<void> {
    this.poller.close()
    this.pool.removeListener('error', this.onPoolError)
    this.metrics?.close()
    await this.sweeper?.idle()
  }

  /** A background sweep: never rejects, a failure goes to `onError`. */
  private sweepOnce(batch: number): Promise<number | undefined> {
    return this.sweep({ batch }).catch(() => undefined)
  }

  /** An idle connection of the pool broke (the server went away): treat it as the outage it likely is. */
  private readonly onPoolError = (): void => {
    this.circuit.trip()
  }

  /**
   * Answer a request with its decisions, `decided[from]` onward, or, when its batch statement failed or its
   * rows are unreadable, reject it with the `PostgresStoreError` (reported once per request, with its key).
   */
  private readonly answer = (
    waiting: Waiting,
    decided: readonly PostgresDecision[] | CallFailure,
    from: number,
  ): void => {
    const { operation, items } = waiting
    if (decided instanceof CallFailure) {
      waiting.reject(this.failed(operation, decided, items[0]!.key))
      return
    }
    if (operation === 'consume') waiting.resolve(decided[from]!)
    else
      waiting.resolve(
        from === 0 && decided.length === items.length
          ? (decided as PostgresDecision[])
          : decided.slice(from, from + items.length),
      )
  }

  /**
   * Report a failure (see `failureReporter`: the circuit, the metrics and `onError`) and give the error to
   * reject with.
   */
  private failed(operation: PostgresStoreErrorEvent['operation'], failure: CallFailure, key: string): Error {
    this.reportFailure(failure, { operation, key, timedOut: failure.timedOut })
    return storeErrorOf(failure)
  }
}
