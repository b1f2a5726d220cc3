/**
 * Sweeps expired rows as decisions are made, with no timer: after `every` decisions a sweep of at most
 * `batch` rows starts in the background, one at a time. A sweep that deleted a whole batch leaves more
 * behind, so the next one is due at once: a flood of new keys is swept as fast as it is written.
 */
export class Sweeper {
  private count = 0
  private running: Promise<void> | undefined

  constructor(
    private readonly every: number,
    private readonly batch: number,
    /** Delete up to `batch` expired rows; resolves with how many, or `undefined` when it failed. Never rejects. */
    private readonly sweep: (batch: number) => Promise<number | undefined>,
  ) {}

  /** Count `decisions` more; start a sweep when one is due and none is running. */
  note(decisions: number): void {
    this.count += decisions
    if (this.count < this.every || this.running) return
    this.count = 0
    this.running = this.sweep(this.batch).then((deleted) => {
      this.running = undefined
      if (deleted === this.batch) this.count = this.every
    })
  }

  /** The sweep in progress, if any (resolves when it is done). */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve()
  }
}
