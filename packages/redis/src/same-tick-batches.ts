import type { ConsumeItem, Decision } from '@floodgate/core'
import {
  type BatchAnswer,
  CallFailure,
  readSettled,
  SameTickBatches,
  type Settled,
} from '@floodgate/core/internal'
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
 * The requests of one turn of the event loop, sent to Redis together ({@link SameTickBatches}): one script
 * call per Cluster slot and per `maxSize` items, answered as soon as its reply is read. The store's `answer`
 * says what a decision or a failure means (the block cache, the error each request rejects with).
 */
export class RedisBatches extends SameTickBatches<Waiting, RedisDecision> {
  constructor(
    private readonly calls: StoreCalls,
    maxSize: number,
    answer: BatchAnswer<Waiting, RedisDecision>,
  ) {
    super(maxSize, answer)
  }

  /** Throws when the store cannot run one of the request's algorithms. */
  protected check(waiting: Waiting): void {
    for (let i = 0; i < waiting.items.length; i++) this.calls.prepare(waiting.items[i]!.algorithm)
  }

  /** On a Cluster, the request's slot (its keys share one): a call carries the keys of one slot. */
  protected override queueOf(waiting: Waiting): number {
    return this.calls.isCluster ? keySlot(waiting.keys[0]!) : 0
  }

  protected call(batch: readonly Waiting[], count: number): Promise<Settled> {
    return this.calls.groups(batch, count)
  }

  protected read(batch: readonly Waiting[], count: number, settled: Settled): RedisDecision[] | CallFailure {
    return count === 1 && batch[0]!.banKeys === undefined
      ? readOne(settled, batch[0]!.items[0]!)
      : readSettled(settled, parseAllReply, itemsOf(batch, count))
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
