/** What the circuit needs to know about the client: its `status` (`'ready'` when connected), if it has one. */
export interface StatusSource {
  readonly status?: string
}

/**
 * Stops waiting on a backend (Redis, PostgreSQL) that is known to be down. After a timeout or a connection error the circuit is
 * open for `cooldownMs`: decisions take the fail mode at once, sending nothing (so nothing piles up in the
 * client's offline queue to run late). After that, requests go to the backend again as soon as the client reports
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

  /** Whether a request may be sent to the backend now. */
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

  /** The backend failed: stop sending for `cooldownMs`. */
  trip(): void {
    this.seenUp = true
    this.openUntil = this.clock() + this.cooldownMs
  }

  /** Whether the circuit is open (failing fast) right now. */
  get open(): boolean {
    return this.openUntil !== 0 && this.clock() < this.openUntil
  }
}
