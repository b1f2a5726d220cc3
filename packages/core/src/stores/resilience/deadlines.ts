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

/** One call waiting for the backend, or for its deadline. */
export interface Pending {
  done: boolean
  deadline: number
  resolve: (settled: Settled) => void
}

/** Settle a pending call once: the first of its answer and its deadline wins; the other is ignored. */
export function settle(pending: Pending, settled: Settled): void {
  if (pending.done) return
  pending.done = true
  pending.resolve(settled)
}

/**
 * The deadlines of every call in flight, in one queue with one timer: every call has the same timeout,
 * so they expire in the order they were made. Cheaper than a timer per call at a hundred thousand
 * decisions a second; the timer exists only while calls are pending, and is unref'd.
 */
export class Deadlines {
  private queue: Pending[] = []
  private head = 0
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly ms: number,
    private readonly timedOut: () => Settled,
  ) {}

  add(pending: Pending): void {
    pending.deadline = performance.now() + this.ms
    this.queue.push(pending)
    if (this.timer === undefined) this.schedule(this.ms)
  }

  /** The timer never keeps the process alive by itself: a call in flight has a socket that does. */
  private schedule(ms: number): void {
    this.timer = setTimeout(this.expire, ms)
    this.timer.unref?.()
  }

  private readonly expire = (): void => {
    this.timer = undefined
    const now = performance.now()
    const queue = this.queue
    let head = this.head
    while (head < queue.length) {
      const pending = queue[head]!
      if (!pending.done) {
        if (pending.deadline > now) break
        settle(pending, this.timedOut())
      }
      queue[head++] = undefined as never
    }
    if (head === queue.length) {
      this.queue = []
      this.head = 0
      return
    }
    if (head > 4096 && head * 2 > queue.length) {
      this.queue = queue.slice(head)
      this.head = 0
    } else {
      this.head = head
    }
    this.schedule(Math.max(1, Math.ceil(queue[head]!.deadline - now)))
  }
}
