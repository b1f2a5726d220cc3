/** What the circuit needs to know about the client: ioredis's `status` (`'ready'` when connected). */
export interface StatusSource {
  readonly status?: string
}

/**
 * Stops waiting on a Redis that is known to be down. After a timeout or a connection error the circuit is
 * open for `cooldownMs`: decisions take the fail mode at once, sending nothing (so nothing piles up in the
 * client's offline queue to run late). After that, requests go to Redis again as soon as the client reports
 * `ready`; while it reports anything else (reconnecting), they keep failing fast. Before the client has
 * ever been ready (starting up), requests are sent and bounded by the timeout.
 */
export class Circuit {
  private openUntil = 0
  private seenUp = false

  constructor(
    private readonly client: StatusSource,
    private readonly cooldownMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Whether a request may be sent to Redis now. */
  allows(): boolean {
    if (this.openUntil !== 0) {
      if (this.clock() < this.openUntil) return false
      this.openUntil = 0
    }
    const status = this.client.status
    if (status === undefined || status === 'ready') {
      this.seenUp = true
      return true
    }
    return !this.seenUp
  }

  /** Redis failed: stop sending for `cooldownMs`. */
  trip(): void {
    this.seenUp = true
    this.openUntil = this.clock() + this.cooldownMs
  }

  /** Whether the circuit is open (failing fast) right now. */
  get open(): boolean {
    return this.openUntil !== 0 && this.clock() < this.openUntil
  }
}
