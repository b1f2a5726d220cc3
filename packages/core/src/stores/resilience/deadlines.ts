import { monotonicClock } from '../../clocks/monotonic-clock.js'
import type { BoundHistogram } from '../../metrics/sink.js'
import { observe } from '../../metrics/store-metrics.js'

/** How a bounded call to a backend failed: an error (or an error reply), or its deadline. */
export class CallFailure {
  constructor(
    readonly error: unknown,
    readonly timedOut: boolean,
    /** Whether the backend looks unavailable (a timeout or a connection error, not an error reply). */
    readonly outage: boolean,
  ) {}
}

/** What a bounded call settled with: the backend's reply, or a {@link CallFailure}. */
export type Settled = unknown

/** One call waiting for the backend, or for its deadline (made by {@link Deadlines.start}). */
export interface Pending {
  done: boolean
  /** When the call started, on the monotonic clock. */
  startedAt: number
  deadline: number
  /**
   * Where the call's duration is recorded, in seconds, when it settles (a store's duration histogram), read
   * from the clock the deadline was set on: timing a call this way costs one clock read and no promise.
   */
  timing: BoundHistogram | undefined
  resolve: (settled: Settled) => void
  /** The calls started before and after this one, while it waits. */
  previous: Pending | undefined
  next: Pending | undefined
  /** The queue it waits in, until it settles. */
  queue: Deadlines | undefined
}

const settled = (_: Settled): void => {}

/**
 * Settle a pending call once: the first of its answer and its deadline wins; the other is ignored. The call
 * leaves its queue at once, so nothing keeps it (nor the reply its promise holds) alive until its deadline.
 */
export function settle(pending: Pending, value: Settled): void {
  if (pending.done) return
  pending.done = true
  const queue = pending.queue
  if (pending.timing !== undefined && queue !== undefined) queue.record(pending)
  queue?.remove(pending)
  const resolve = pending.resolve
  pending.resolve = settled
  resolve(value)
}

/**
 * The deadlines of every call in flight, with one timer: every call has the same timeout (the store's bound,
 * which the limiter's `storeTimeout` sets), so they expire in the order they were made, and the calls waiting
 * form a list in that order. A call leaves the list when it
 * settles (an answer a few hundred microseconds later, usually), so the list holds only the calls still in
 * flight: a call's objects die young, as they would with no deadline at all, instead of living (and being
 * copied by the garbage collector) for the whole timeout. The timer exists only while calls are pending, is
 * unref'd, and wakes when the oldest call's deadline passes. Cheaper than a timer per call at a hundred
 * thousand decisions a second. A bound made shorter while calls wait (a second limiter over the store) leaves
 * the list out of order until it empties: the timer then looks at every call, not only the oldest.
 */
export class Deadlines {
  private first: Pending | undefined
  private last: Pending | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  /** When the timer fires (monotonic ms), while it is set. */
  private timerAt = 0
  /** Whether the calls waiting may be out of deadline order (the bound was made shorter meanwhile). */
  private unordered = false

  constructor(
    private ms: number,
    /** The failure a call settles with at its deadline, given the bound it had. */
    private readonly timedOut: (ms: number) => Settled,
  ) {}

  /** The bound of every call started from now on, in ms. */
  get timeoutMs(): number {
    return this.ms
  }

  /** Bound the calls started from now on by `ms`; calls already waiting keep their deadlines. */
  bound(ms: number): void {
    if (ms < this.ms && this.first !== undefined) this.unordered = true
    this.ms = ms
  }

  /**
   * A call that settles through `resolve` with its answer, or with the timeout's failure at its deadline;
   * with `timing`, its duration is recorded there when it settles.
   */
  start(resolve: (settled: Settled) => void, timing?: BoundHistogram): Pending {
    const startedAt = monotonicClock()
    const pending: Pending = {
      done: false,
      startedAt,
      deadline: startedAt + this.ms,
      timing,
      resolve,
      previous: this.last,
      next: undefined,
      queue: this,
    }
    if (this.last === undefined) this.first = pending
    else this.last.next = pending
    this.last = pending
    if (this.timer === undefined) this.schedule(this.ms)
    else if (this.unordered && pending.deadline < this.timerAt) {
      clearTimeout(this.timer)
      this.schedule(this.ms)
    }
    return pending
  }

  /** Record how long `pending` took, from its start to now. */
  record(pending: Pending): void {
    observe(pending.timing!, monotonicClock, pending.startedAt)
  }

  /** Take a settled call out of the list. */
  remove(pending: Pending): void {
    const { previous, next } = pending
    if (previous === undefined) this.first = next
    else previous.next = next
    if (next === undefined) this.last = previous
    else next.previous = previous
    pending.previous = undefined
    pending.next = undefined
    pending.queue = undefined
    if (this.first === undefined) this.unordered = false
  }

  /** The timer never keeps the process alive by itself: a call in flight has a socket that does. */
  private schedule(ms: number): void {
    this.timerAt = monotonicClock() + ms
    this.timer = setTimeout(this.expire, ms)
    this.timer.unref?.()
  }

  private readonly expire = (): void => {
    this.timer = undefined
    const now = monotonicClock()
    let next: number | undefined
    let call = this.first
    while (call !== undefined) {
      const after = call.next
      if (call.deadline <= now) settle(call, this.timedOut(call.deadline - call.startedAt))
      else if (!this.unordered) {
        next = call.deadline
        break
      } else if (next === undefined || call.deadline < next) next = call.deadline
      call = after
    }
    if (next !== undefined) this.schedule(Math.max(1, Math.ceil(next - now)))
  }
}
