import type { Algorithm, ConsumeItem } from '@floodgate/core'
import type { Deadlines, Settled, StoreMetrics, StoreOperation } from '@floodgate/core/internal'
import type { PostgresPool } from './options.js'
import { QueryRunner } from './query-runner.js'
import { BAN_ROW } from './sql/consume-banned.js'
import type { Location } from './sql/location.js'
import { storedKey } from './stored-key.js'
import {
  type CallSettings,
  consumeAllValues,
  consumeBannedValues,
  consumeBatchValues,
  decideValues,
  hasBans,
  type ItemGroup,
  type Operation,
  type Statements,
  statements,
  stepArgs,
} from './wire.js'

/**
 * The PostgresStore's calls to PostgreSQL, one statement each: built from the store's settings, bounded by
 * its deadlines, timed when the store has metrics. Every call settles with its rows or a `CallFailure`, never
 * rejects; what a failure decides is the store's business.
 */
export class StoreCalls {
  private readonly runner: QueryRunner
  private readonly statements: Statements
  private readonly settings: CallSettings
  private readonly metrics: StoreMetrics | undefined
  private readonly params = new WeakMap<Algorithm, (number | null)[]>()

  constructor(parts: {
    pool: PostgresPool
    location: Location
    deadlines: Deadlines
    settings: CallSettings
    metrics: StoreMetrics | undefined
  }) {
    this.runner = new QueryRunner(parts.pool, parts.location, parts.deadlines)
    this.statements = statements(parts.location)
    this.settings = parts.settings
    this.metrics = parts.metrics
  }

  /** One key's decision function for `operation`: settles with its one row. */
  decide(
    operation: Operation,
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ): Promise<Settled> {
    const values = decideValues({
      operation,
      algorithm,
      key,
      cost,
      now,
      params: this.paramsOf(algorithm),
      settings: this.settings,
    })
    // A release is timed as a refund: both give units back.
    const timing = operation === 'release' ? 'refund' : operation
    return this.timed(timing, this.runner.run(this.statements.decide, values))
  }

  /** The consume-all function: settles with a row per item, in the items' order. */
  consumeAll(items: readonly ConsumeItem[], now: number | undefined): Promise<Settled> {
    const values = consumeAllValues({
      items,
      now,
      paramsOf: (algorithm) => this.paramsOf(algorithm),
      settings: this.settings,
    })
    return this.timed('consume_all', this.runner.run(this.statements.consumeAll, values))
  }

  /**
   * Decide `groups` (`count` items in all; a tick's batch), each group as one, in one statement: a lone
   * request with its own statement (a consume's one-key function, a consumeAll's consume-all function),
   * which does less than the batch function; else the batch function. Settles with a row per item, in order.
   */
  groups(groups: readonly ItemGroup[], count: number): Promise<Settled> {
    if (hasBans(groups)) {
      // Bans are checked and counted in the same statement as the decisions (migration 4's function).
      const values = consumeBannedValues({
        groups,
        count,
        paramsOf: (algorithm) => this.paramsOf(algorithm),
        settings: this.settings,
      })
      return this.timed('consume_all', this.runner.run(this.statements.consumeBanned, values))
    }
    if (groups.length === 1) {
      const { items, now } = groups[0]!
      if (count === 1) {
        const { algorithm, key, cost } = items[0]!
        return this.decide('consume', algorithm, key, cost, now)
      }
      return this.consumeAll(items, now)
    }
    const values = consumeBatchValues({
      groups,
      count,
      paramsOf: (algorithm) => this.paramsOf(algorithm),
      settings: this.settings,
    })
    return this.timed('consume_all', this.runner.run(this.statements.consumeBatch, values))
  }

  /** Delete one key's row. */
  reset(algorithm: Algorithm, key: string): Promise<Settled> {
    const { lockTimeout, durable } = this.settings
    const values = [storedKey(key), algorithm.id, lockTimeout, durable]
    return this.timed('reset', this.runner.run(this.statements.reset, values))
  }

  /** Delete one key's ban row (an unban): the reset function, on the ban's row. */
  unban(key: string): Promise<Settled> {
    const { lockTimeout, durable } = this.settings
    const values = [storedKey(key), BAN_ROW, lockTimeout, durable]
    return this.timed('reset', this.runner.run(this.statements.reset, values))
  }

  /** Delete up to `batch` expired rows: settles with one row holding how many. */
  sweep(batch: number): Promise<Settled> {
    return this.timed('sweep', this.runner.run(this.statements.sweep, [batch, this.settings.lockTimeout]))
  }

  /** `algorithm`'s parameters for its step (made on first use); throws when the store cannot run it. */
  paramsOf(algorithm: Algorithm): (number | null)[] {
    let params = this.params.get(algorithm)
    if (!params) {
      params = stepArgs(algorithm)
      this.params.set(algorithm, params)
    }
    return params
  }

  private timed(operation: StoreOperation, call: Promise<Settled>): Promise<Settled> {
    return this.metrics ? this.metrics.timed(operation, call) : call
  }
}
