/**
 * What happened in each tick of a simulation, as columns (index `i` is the tick starting at `start[i]` ms).
 * Counts are requests; `state` holds the watched key's decoded state at each tick's last millisecond, after
 * that tick's requests.
 */
export interface Timeline {
  /** The tick's length, in ms. */
  readonly tickMs: number
  /** How many ticks. */
  readonly length: number
  /** Each tick's start, in ms. */
  readonly start: Float64Array
  /** Requests that arrived in the tick. */
  readonly sent: Float64Array
  /** Requests admitted (including those admitted with a delay). */
  readonly admitted: Float64Array
  /** Requests refused (the 429s). */
  readonly refused: Float64Array
  /** Requests admitted with a `delayMs` > 0 (a shaping leaky bucket). */
  readonly delayed: Float64Array
  /** Admitted requests that leave in this tick: they arrived, waited their `delayMs`, and go on. */
  readonly released: Float64Array
  /**
   * Units the watched key had admitted in the rolling window (the algorithm's `windowMs`) that ends at the
   * tick's last millisecond: what an exact sliding log would count.
   */
  readonly inWindow: Float64Array
  /** The watched key's decoded state, one column per field (`tokens`, `level`, `estimate`, ...). */
  readonly state: Readonly<Record<string, Float64Array>>
}

/** The most of anything that happened, over the whole run. */
export interface Summary {
  /** Requests sent. */
  readonly sent: number
  /** Requests admitted. */
  readonly admitted: number
  /** Requests refused. */
  readonly refused: number
  /** Requests admitted with a delay. */
  readonly delayed: number
  /** The longest delay given, in ms. */
  readonly maxDelayMs: number
  /**
   * The most units one key had admitted in any rolling window of the algorithm's `windowMs`
   * (`(t - windowMs, t]`, as the sliding log counts): compare it with the limit.
   */
  readonly maxInWindow: {
    readonly units: number
    readonly windowMs: number
    /** The key that reached it (the first one, on a tie). */
    readonly key: string
    /** When: the end of that window, in ms. */
    readonly at: number
  }
}
