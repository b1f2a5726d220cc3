import type { Decision } from '@floodgate/core'
import {
  type BatchAnswer,
  type CallFailure,
  readSettled,
  SameTickBatches,
  type Settled,
} from '@floodgate/core/internal'
import type { StoreCalls } from './store-calls.js'
import { type ItemGroup, type PostgresDecision, parseRow } from './wire.js'

/** The most items one batch statement carries with `batch: true`. */
export const DEFAULT_MAX_BATCH_SIZE = 128

/** One request waiting for its batch: its items (decided as one), and how it is answered. */
export interface Waiting extends ItemGroup {
  /** The store method it came from: a `consume` is answered with one decision, a `consumeAll` with all. */
  readonly operation: 'consume' | 'consumeAll'
  readonly resolve: (answer: PostgresDecision | Decision[]) => void
  /** Rejects the request (its batch statement failed, or its rows are unreadable) with the store's error. */
  readonly reject: (error: unknown) => void
}

/**
 * The requests of one turn of the event loop, sent to PostgreSQL together ({@link SameTickBatches}, as the
 * RedisStore sends them to Redis): one statement per `maxSize` items, on one pool connection, answered as soon
 * as its rows are read. The store's `answer` says what a failure means (the error each request rejects with,
 * the report to `onError`).
 */
export class PostgresBatches extends SameTickBatches<Waiting, PostgresDecision> {
  constructor(
    private readonly calls: StoreCalls,
    maxSize: number,
    answer: BatchAnswer<Waiting, PostgresDecision>,
  ) {
    super(maxSize, answer)
  }

  /** Throws when the store cannot run one of the request's algorithms. */
  protected check(waiting: Waiting): void {
    for (let i = 0; i < waiting.items.length; i++) this.calls.paramsOf(waiting.items[i]!.algorithm)
  }

  protected call(batch: readonly Waiting[], count: number): Promise<Settled> {
    return this.calls.groups(batch, count)
  }

  protected read(
    batch: readonly Waiting[],
    count: number,
    settled: Settled,
  ): PostgresDecision[] | CallFailure {
    return readSettled(settled, (rows) => parseRows(rows, batch, count))
  }
}

/** The decisions of a batch's rows, one per item in order; throws on any other number of rows or a bad row. */
function parseRows(rows: unknown, batch: readonly Waiting[], count: number): PostgresDecision[] {
  if (!Array.isArray(rows) || rows.length !== count) {
    throw new TypeError(`Unexpected rows from a Floodgate function: ${count} expected`)
  }
  const decisions: PostgresDecision[] = new Array(count)
  for (let g = 0, at = 0; g < batch.length; g++) {
    const items = batch[g]!.items
    for (let i = 0; i < items.length; i++, at++) decisions[at] = parseRow(rows[at], items[i]!.algorithm)
  }
  return decisions
}
