import type { ConsumeItem, Decision } from '@floodgate/core'
import { CallFailure, readSettled, type Settled } from '@floodgate/core/internal'
import { keySlot } from './redis-key.js'
import type { StoreCalls } from './store-calls.js'
import { type ItemGroup, parseAllReply, parseReply, type RedisDecision } from './wire.js'

/** The most items one batch call carries with `batch: true`. */
export const DEFAULT_MAX_BATCH_SIZE = 128

/** One request waiting for its batch: its items (decided as one), and how it is answered. */
export interface Waiting extends ItemGroup {
  /** The store method it came from: a `consume` is answered with one decision, a `consumeAll` with all. */
  readonly operation: 'consume' | 'consumeAll'
  /** When it was asked (the block cache counts from it). */
  readonly sentAt: number
  readonly resolve: (answer: RedisDecision | Decision[] | PromiseLike<RedisDecision | Decision[]>) => void
  /** Rejects the request (its batch call failed, or its reply is unreadable) with the store's error. */
  readonly reject: (error: unknown) => void
}

/**
 * Answers a request with the decisions of its batch (its own are `decided[from]` onward) or with the batch
 * call's failure. Given by the store: what a decision or a failure means (the block cache, the error each
 * request rejects with) is the store's.
 */
export type Answer = (waiting: Waiting, decided: readonly RedisDecision[] | CallFailure, from: number) => void

/**
 * The requests of one turn of the event loop, sent to Redis together: every request added while the process
 * handles the I/O that is ready (the HTTP requests that arrived together, the replies that woke 256 waiting
 * callers) is sent once that I/O has been handled (`setImmediate`), as one script call per Cluster slot and
 * per `maxSize` items. Nothing waits for a timer or for new I/O: a request alone in its turn goes out at the
 * end of it. Each request is decided on its own (its items as one), and answered as soon as its batch's reply
 * is read. With `maxSize` 0, every request is sent at once, alone.
 *
 * Why not `process.nextTick` or `queueMicrotask`: Node runs both after each I/O callback, and an HTTP server
 * gets each connection's request in a callback of its own, so requests from different connections never share
 * a tick (over HTTP with 50 connections, a call carried 1.00 decisions with `process.nextTick`, 15.6 with
 * `setImmediate`); and a microtask flushes before callers that await a few more times have asked.
 */
export class SameTickBatches {
  private queues = new Map<number, Waiting[]>()
  private scheduled = false

  constructor(
    private readonly calls: StoreCalls,
    private readonly maxSize: number,
    private readonly answer: Answer,
  ) {}

  /**
   * Decide `waiting` in this tick's batch of its slot (its keys share one). Throws at once when the store
   * cannot run one of its algorithms.
   */
  add(waiting: Waiting): void {
    for (let i = 0; i < waiting.items.length; i++) this.calls.prepare(waiting.items[i]!.algorithm)
    if (this.maxSize === 0) {
      this.send([waiting], waiting.items.length)
      return
    }
    const slot = this.calls.isCluster ? keySlot(waiting.keys[0]!) : 0
    const queue = this.queues.get(slot)
    if (queue) queue.push(waiting)
    else this.queues.set(slot, [waiting])
    if (!this.scheduled) {
      this.scheduled = true
      setImmediate(this.flush)
    }
  }

  /** Send every slot's requests, `maxSize` items a call at most (a request's items are never split). */
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
    const decided =
      count === 1 && batch[0]!.banKeys === undefined
        ? readOne(settled, batch[0]!.items[0]!)
        : readSettled(settled, parseAllReply, itemsOf(batch, count))
    for (let g = 0, from = 0; g < batch.length; g++) {
      const waiting = batch[g]!
      this.answer(waiting, decided, from)
      from += waiting.items.length
    }
  }
}

/** The decision of a lone item without a ban (sent with its one-key script), as a batch's decisions. */
function readOne(settled: Settled, item: ConsumeItem): RedisDecision[] | CallFailure {
  const decision = readSettled(settled, parseReply, item.algorithm)
  return decision instanceof CallFailure ? decision : [decision]
}

/** Every item of `batch`, in order. */
function itemsOf(batch: readonly Waiting[], count: number): ConsumeItem[] {
  const items: ConsumeItem[] = new Array(count)
  for (let g = 0, at = 0; g < batch.length; g++) {
    const own = batch[g]!.items
    for (let i = 0; i < own.length; i++) items[at++] = own[i]!
  }
  return items
}
