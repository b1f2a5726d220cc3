import {
  type Algorithm,
  type ConsumeItem,
  type Decision,
  MemoryStore,
  type Store,
  type StoreOperation,
} from '@floodgate/core'
import {
  CallFailure,
  Circuit,
  createStoreMetrics,
  type FailModeDecisions,
  failModeDecisions,
  type StoreMetrics,
} from '@floodgate/core/internal'
import {
  type FailMode,
  type ParsedOptions,
  type PostgresPool,
  type PostgresStoreErrorEvent,
  type PostgresStoreOptions,
  parseStoreOptions,
} from './options.js'
import { QueryRunner } from './query-runner.js'
import type { Location } from './sql/location.js'
import { storedKey } from './stored-key.js'
import { Sweeper } from './sweeper.js'
import {
  type CallSettings,
  consumeAllValues,
  decideValues,
  type Operation,
  type PostgresDecision,
  parseRow,
  type Statements,
  statements,
  stepParams,
} from './wire.js'

/**
 * Rate-limit state in PostgreSQL, shared by every server: each decision is one statement, a call of a
 * PL/pgSQL function that locks the key's row, runs the algorithm's step and writes the result, atomically,
 * on the database's clock unless the limiter passes a time. The table and functions come from `migrate()`;
 * expired rows are swept in bounded batches; every decision is bounded by `timeoutMs` and, when PostgreSQL
 * fails, taken by `failMode`.
 *
 * @example
 * await migrate(pool)
 * const store = new PostgresStore({ pool, failMode: 'fallback' })
 * const limiter = createLimiter({ algorithm: slidingWindowCounter({ limit: 100, window: '1m' }), store })
 */
export class PostgresStore implements Store {
  readonly pool: PostgresPool
  readonly schema: string
  readonly table: string
  readonly timeoutMs: number
  readonly lockTimeoutMs: number
  readonly failMode: FailMode
  /** The store used while PostgreSQL is unavailable, with `failMode: 'fallback'`. */
  readonly fallback: Store | undefined
  private readonly options: ParsedOptions
  private readonly settings: CallSettings
  private readonly circuit: Circuit
  private readonly runner: QueryRunner
  private readonly statements: Statements
  private readonly failing: FailModeDecisions
  private readonly metrics: StoreMetrics | undefined
  private readonly sweeper: Sweeper | undefined
  private readonly params = new WeakMap<Algorithm, (number | null)[]>()

  constructor(options: PostgresStoreOptions) {
    const parsed = parseStoreOptions(options)
    this.options = parsed
    this.pool = parsed.pool
    this.schema = parsed.schema
    this.table = parsed.table
    this.timeoutMs = parsed.timeoutMs
    this.lockTimeoutMs = parsed.lockTimeoutMs
    this.failMode = parsed.failMode
    this.fallback = parsed.fallback ?? (parsed.failMode === 'fallback' ? new MemoryStore() : undefined)
    this.settings = {
      grace: parsed.expiryGraceMs,
      lockTimeout: String(parsed.lockTimeoutMs),
      durable: parsed.synchronousCommit,
    }
    const location: Location = { schema: parsed.schema, table: parsed.table }
    this.statements = statements(location)
    this.circuit = new Circuit({}, parsed.cooldownMs)
    this.runner = new QueryRunner(this.pool, location, this.timeoutMs)
    this.metrics = createStoreMetrics({
      sink: parsed.metrics,
      store: 'postgres',
      operations: ['consume', 'consume_all', 'peek', 'refund', 'reset', 'sweep'],
      circuitOpen: () => this.circuit.open,
    })
    this.failing = failModeDecisions({
      failMode: this.failMode,
      fallback: this.fallback,
      closedRetryAfterMs: parsed.cooldownMs,
      metrics: this.metrics,
    })
    const sweep = parsed.sweep
    this.sweeper =
      sweep === false
        ? undefined
        : new Sweeper(sweep.every, sweep.batch, (batch) =>
            this.circuit.allows() ? this.sweepOnce(batch) : Promise.resolve(undefined),
          )
    this.pool.on('error', this.onPoolError)
  }

  /** Whether decisions are failing fast right now because PostgreSQL recently failed. */
  get degraded(): boolean {
    return this.circuit.open
  }

  /** The key as the table stores it (see `storedKey`): itself, or a hash of a very long or odd one. */
  keyOf(key: string): string {
    return storedKey(key)
  }

  consume(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<PostgresDecision> {
    this.sweeper?.note(1)
    return this.decideOne('consume', algorithm, key, cost, now)
  }

  peek(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<PostgresDecision> {
    return this.decideOne('peek', algorithm, key, cost, now)
  }

  /** Give units back. Never rejects: a failure is reported to `onError` (and applied to the fallback store). */
  refund(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<void> {
    if (!this.circuit.allows()) return this.failing.refund(algorithm, key, cost, now)
    return this.call('refund', algorithm, key, cost, now).then((settled) => {
      if (!(settled instanceof CallFailure)) return
      this.report('refund', settled, key)
      return this.failing.refund(algorithm, key, cost, now)
    })
  }

  /** Forget `key` (in PostgreSQL and in the fallback store). Rejects when PostgreSQL fails. */
  async reset(algorithm: Algorithm, key: string): Promise<void> {
    if (this.fallback) await this.fallback.reset(algorithm, key)
    const { lockTimeout, durable } = this.settings
    const settled = await this.timed(
      'reset',
      this.runner.run(this.statements.reset, [storedKey(key), algorithm.id, lockTimeout, durable]),
    )
    if (settled instanceof CallFailure) {
      this.report('reset', settled, key)
      throw settled.error
    }
  }

  /**
   * Decide several policies as one, in one statement: every key's row is locked (in one order, so requests
   * never deadlock), every item is peeked, and all are consumed only when all would pass. A refused request
   * spends nothing, and no other request sees anything spent in between.
   */
  consumeAll(items: readonly ConsumeItem[], now?: number): Promise<Decision[]> {
    if (items.length === 0) return Promise.resolve([])
    this.sweeper?.note(items.length)
    if (!this.circuit.allows()) return this.failing.decideAll(items, now)
    const values = consumeAllValues({
      items,
      now,
      paramsOf: (algorithm) => this.prepare(algorithm),
      settings: this.settings,
    })
    return this.timed('consume_all', this.runner.run(this.statements.consumeAll, values)).then((settled) => {
      try {
        if (settled instanceof CallFailure) throw settled
        const rows = settled as unknown[]
        if (!Array.isArray(rows) || rows.length !== items.length) {
          throw new TypeError('Unexpected rows from the consume-all function')
        }
        return items.map((item, i) => parseRow(rows[i], item.algorithm) as Decision)
      } catch (error) {
        const failure = error instanceof CallFailure ? error : new CallFailure(error, false, false)
        this.report('consumeAll', failure, items[0]!.key)
        return this.failing.decideAll(items, now)
      }
    })
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
    const settled = await this.timed(
      'sweep',
      this.runner.run(this.statements.sweep, [batch, this.settings.lockTimeout]),
    )
    if (settled instanceof CallFailure) {
      this.report('sweep', settled, '')
      throw settled.error
    }
    return Number((settled as unknown[][])[0]?.[0] ?? 0)
  }

  /** Stop listening to the pool and wait for a sweep in progress. The pool is yours: the store never ends it. */
  async close(): Promise<void> {
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

  private prepare(algorithm: Algorithm): (number | null)[] {
    let params = this.params.get(algorithm)
    if (!params) {
      params = stepParams(algorithm)
      this.params.set(algorithm, params)
    }
    return params
  }

  /** Run one key's decision function for `operation`. */
  private call(
    operation: Operation,
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ) {
    const params = this.prepare(algorithm)
    return this.timed(
      operation,
      this.runner.run(
        this.statements.decide,
        decideValues({ operation, algorithm, key, cost, now, params, settings: this.settings }),
      ),
    )
  }

  /** `call`, timed when the store has metrics. */
  private timed<T>(operation: StoreOperation, call: Promise<T>): Promise<T> {
    return this.metrics ? this.metrics.timed(operation, call) : call
  }

  /** A consume or peek through PostgreSQL; an error, a timeout or an unreadable row takes the fail mode. */
  private decideOne(
    operation: 'consume' | 'peek',
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ): Promise<PostgresDecision> {
    if (!this.circuit.allows()) return this.fallBack(operation, algorithm, key, cost, now)
    return this.call(operation, algorithm, key, cost, now).then((settled) => {
      let failure: CallFailure
      if (settled instanceof CallFailure) {
        failure = settled
      } else {
        try {
          return parseRow((settled as unknown[])[0], algorithm)
        } catch (error) {
          failure = new CallFailure(error, false, false)
        }
      }
      this.report(operation, failure, key)
      return this.fallBack(operation, algorithm, key, cost, now)
    })
  }

  private fallBack(
    operation: 'consume' | 'peek',
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ): Promise<PostgresDecision> {
    return this.failing.decide(operation, algorithm, key, cost, now) as Promise<PostgresDecision>
  }

  /** Report a failure; a timeout or a connection error (anything but an error reply) opens the circuit. */
  private report(operation: PostgresStoreErrorEvent['operation'], failure: CallFailure, key: string): void {
    if (failure.outage) this.circuit.trip()
    this.metrics?.failed(failure)
    const onError = this.options.onError
    if (!onError) return
    const error = failure.error instanceof Error ? failure.error : new Error(String(failure.error))
    try {
      onError(error, { operation, key, failMode: this.failMode, timedOut: failure.timedOut })
    } catch {
      // onError must not throw; a throwing hook must not turn a decision into a rejection.
    }
  }
}
