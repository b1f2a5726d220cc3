import type { Decision } from '@floodgate/core'
import { CallFailure, readSettled, type Settled } from '@floodgate/core/internal'
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
 * Answers a request with the decisions of its batch (its own are `decided[from]` onward) or with the batch
 * statement's failure. Given by the store: what a failure means (the error each request rejects with, the
 * report to `onError`) is the store's.
 */
export type Answer = (
  waiting: Waiting,
  decided: readonly PostgresDecision[] | CallFailure,
  from: number,
) => void

/**
 * The requests of one turn of the event loop, sent to PostgreSQL together, as the RedisStore sends them to
 * Redis: every request added while the process handles the I/O that is ready is sent once that I/O has been
 * handled (`setImmediate`), as one statement per `maxSize` items, on one pool connection. Nothing waits for a
 * timer or for new I/O: a request alone in its turn goes out at the end of it, with its own statement. Each
 * request is decided on its own (its items as one), and answered as soon as its batch's rows are read. With
 * `maxSize` 0, every request is sent at once, alone.
 */
export class SameTickBatches {
  private queue: Waiting[] = []
  private scheduled = false

  constructor(
    private readonly calls: StoreCalls,
    private readonly maxSize: number,
    private readonly answer: Answer,
  ) {}

  /** Decide `waiting` in this tick's batch. Throws at once when the store cannot run one of its algorithms. */
  add(waiting: Waiting): void {
    for (let i = 0; i < waiting.items.length; i++) this.calls.paramsOf(waiting.items[i]!.algorithm)
    if (this.maxSize === 0) {
      this.send([waiting], waiting.items.length)
      return
    }
    this.queue.push(waiting)
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(this.flush)
    }
  }

  /** Send the tick's requests, `maxSize` items a statement at most (a request's items are never split). */
  private readonly flush = (): void => {
    this.scheduled = false
    const queue = this.queue
    this.queue = []
    let start = 0
    let count = 0
    for (let i = 0; i < queue.length; i++) {
      const size = queue[i]!.items.length
      if (count > 0 && count + size > this.maxSize) {
        this.send(queue.slice(start, i), count)
        start = i
        count = 0
      }
      count += size
    }
    this.send(start === 0 ? queue : queue.slice(start), count)
  }

  /** One statement for `batch` (`count` items in all); each request is answered when it returns. */
  private send(batch: readonly Waiting[], count: number): void {
    let sent: Promise<Settled>
    try {
      sent = this.calls.groups(batch, count)
    } catch (error) {
      sent = Promise.resolve(new CallFailure(error, false, false))
    }
    sent.then((settled) => this.settle(batch, count, settled))
  }

  private settle(batch: readonly Waiting[], count: number, settled: Settled): void {
    const decided = readSettled(settled, (rows) => parseRows(rows, batch, count))
    for (let g = 0, from = 0; g < batch.length; g++) {
      const waiting = batch[g]!
      this.answer(waiting, decided, from)
      from += waiting.items.length
    }
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
