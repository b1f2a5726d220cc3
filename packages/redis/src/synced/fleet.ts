import { randomUUID } from 'node:crypto'

/** How long (in sync intervals, at least 5 s) a process that stopped syncing is still counted. */
const HORIZON_SYNCS = 20
const HORIZON_MIN_MS = 5000
/**
 * For how many sync intervals a process that has just joined must see the same count before it cuts
 * allowances by it: by then every other process that counts a key has synced at least once since it joined,
 * and learned the new count (a process syncs within one interval of counting, and its reply comes within a
 * round trip, shorter than an interval).
 */
const SETTLE_SYNCS = 2

/**
 * How many processes share the limits: fixed by the `processes` option, or counted in Redis, where every
 * process joins a sorted set (scored by the server's clock) when it is created and on every sync, and leaves on
 * `close()`. A process that stops syncing (idle, or dead) is dropped after `horizonMs`: counting it a little
 * longer only makes the others' allowances smaller.
 *
 * A process that has just joined is not yet counted by the others, whose allowances are cut by the count they
 * last read: until it has seen the same count for {@link SETTLE_SYNCS} sync intervals, its own share is nothing
 * ({@link shares} is Infinity) and Redis decides each of its requests. Processes started together (a deploy)
 * and hit by a burst before any of them synced are held to the limit exactly, not to the sum of shares cut by
 * counts that each saw as it joined (1/1 + 1/2 + 1/3 + 1/4 of it for four).
 */
export class Fleet {
  /** This store's member name in the set. */
  readonly id = randomUUID()
  private counted = 1
  /** When (local clock) the first join that reported `counted` was sent; NaN before any reply. */
  private countedSince = Number.NaN
  private settled: boolean
  /** Called when {@link shares} changes, with its new value (the store keeps its slabs' copies up to date). */
  onShares: ((shares: number) => void) | undefined

  constructor(
    /** The sorted set, under the RedisStore's prefix. */
    readonly key: string,
    private readonly fixed: number | undefined,
    private readonly horizonMs: number,
    /** How long (ms) a joining process must see one count before it is settled. */
    private readonly settleMs: number,
  ) {
    this.settled = fixed !== undefined
  }

  /** Whether processes are counted in Redis (the `'auto'` option). */
  get counting(): boolean {
    return this.fixed === undefined
  }

  /** How many processes each allowance is shared with (at least 1, this one). */
  get processes(): number {
    return this.fixed ?? this.counted
  }

  /**
   * What an allowance is divided by while Redis is reachable: the processes, once this one's count has
   * settled; Infinity before (no allowance: Redis decides).
   */
  get shares(): number {
    return this.settled ? this.processes : Number.POSITIVE_INFINITY
  }

  /** The ARGV of the fleet script for `op`. */
  args(op: 'join' | 'leave'): string[] {
    return [op, this.id, String(this.horizonMs)]
  }

  /**
   * A reply of the fleet script to a join sent at `sentAt` (local clock, ms): the number of members after this
   * one joined. Anything else is ignored.
   */
  observe(reply: unknown, sentAt: number): void {
    if (!(typeof reply === 'number' && Number.isSafeInteger(reply) && reply >= 1)) return
    const before = this.shares
    if (reply !== this.counted || Number.isNaN(this.countedSince)) {
      this.counted = reply
      this.countedSince = sentAt
    } else if (sentAt - this.countedSince >= this.settleMs) {
      this.settled = true
    }
    if (this.shares !== before) this.onShares?.(this.shares)
  }
}

/** The fleet of a SyncedStore over a RedisStore's `prefix`: `processes` fixed, or counted in Redis (`'auto'`). */
export function fleetOf(prefix: string, processes: number | 'auto', syncEveryMs: number): Fleet {
  const horizonMs = Math.max(HORIZON_MIN_MS, HORIZON_SYNCS * syncEveryMs)
  return new Fleet(
    `${prefix}:{synced}:processes`,
    processes === 'auto' ? undefined : processes,
    horizonMs,
    SETTLE_SYNCS * syncEveryMs,
  )
}
