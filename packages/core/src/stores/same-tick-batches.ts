import type { ConsumeItem } from '../types.js'
import { CallFailure, type Settled } from './resilience/deadlines.js'

/** A request waiting for its batch: its items, decided as one (a batch never splits them). */
export interface Batched {
  readonly items: readonly ConsumeItem[]
}

/**
 * Answers a request with the decisions of its batch (its own are `decided[from]` onward) or with the batch
 * call's failure. Given by the store: what a decision or a failure means (the error each request rejects with,
 * the report to `onError`, a block cache) is the store's.
 */
export type BatchAnswer<W extends Batched, D> = (
  waiting: W,
  decided: readonly D[] | CallFailure,
  from: number,
) => void

/**
 * The requests of one turn of the event loop, sent to a store's backend together: every request added while
 * the process handles the I/O that is ready (the HTTP requests that arrived together, the replies that woke
 * 256 waiting callers) is sent once that I/O has been handled (`setImmediate`), as one call per queue (a
 * Redis Cluster slot; one queue by default) and per `maxSize` items. Nothing waits for a timer or for new
 * I/O: a request alone in its turn goes out at the end of it, with its own call. Each request is decided on
 * its own (its items as one), and answered as soon as its batch's reply is read. With `maxSize` 0, every
 * request is sent at once, alone.
 *
 * Why not `process.nextTick` or `queueMicrotask`: Node runs both after each I/O callback, and an HTTP server
 * gets each connection's request in a callback of its own, so requests from different connections never share
 * a tick (over HTTP with 50 connections, a call carried 1.00 decisions with `process.nextTick`, 15.6 with
 * `setImmediate`); and a microtask flushes before callers that await a few more times have asked.
 *
 * A store extends it with what is its own: the check of a request as it is added, the call that sends a
 * batch, how the call's reply reads as decisions, and (Redis Cluster) the queue of a request.
 */
export abstract class SameTickBatches<W extends Batched, D> {
  private queues = new Map<number, W[]>()
  private scheduled = false

  constructor(
    private readonly maxSize: number,
    private readonly answer: BatchAnswer<W, D>,
  ) {}

  /** Throws when the store cannot decide `waiting` (it cannot run one of its algorithms). */
  protected abstract check(waiting: W): void

  /** The call for `batch` (`count` items in all): it settles with the backend's reply or a {@link CallFailure}. */
  protected abstract call(batch: readonly W[], count: number): Promise<Settled>

  /** The decisions of `batch`, one per item in order, from what its call settled with, or the call's failure. */
  protected abstract read(batch: readonly W[], count: number, settled: Settled): readonly D[] | CallFailure

  /** The queue `waiting` joins: requests of different queues never share a call. One queue unless overridden. */
  protected queueOf(_waiting: W): number {
    return 0
  }

  /** Decide `waiting` in this tick's batch of its queue. Throws at once when the store cannot decide it. */
  add(waiting: W): void {
    this.check(waiting)
    if (this.maxSize === 0) {
      this.send([waiting], waiting.items.length)
      return
    }
    const key = this.queueOf(waiting)
    const queue = this.queues.get(key)
    if (queue) queue.push(waiting)
    else this.queues.set(key, [waiting])
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(this.flush)
    }
  }

  /** Send every queue's requests, `maxSize` items a call at most (a request's items are never split). */
  private readonly flush = (): void => {
    this.scheduled = false
    const queues = this.queues
    this.queues = new Map()
    for (const queue of queues.values()) {
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
  }

  /** One call for `batch` (`count` items in all); each request is answered when it returns. */
  private send(batch: readonly W[], count: number): void {
    let sent: Promise<Settled>
    try {
      sent = this.call(batch, count)
    } catch (error) {
      sent = Promise.resolve(new CallFailure(error, false, false))
    }
    sent.then((settled) => this.settle(batch, count, settled))
  }

  private settle(batch: readonly W[], count: number, settled: Settled): void {
    const decided = this.read(batch, count, settled)
    for (let g = 0, from = 0; g < batch.length; g++) {
      const waiting = batch[g]!
      this.answer(waiting, decided, from)
      from += waiting.items.length
    }
  }
}
