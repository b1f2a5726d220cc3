import type { StateReader } from './state/inner-state.js'
import type { Arrivals } from './traffic/types.js'

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

/** The moment a tick's state is read: its last millisecond (its start, for ticks of 1 ms or less). */
export const sampleTime = (tickMs: number, tick: number) => Math.max(tick * tickMs, (tick + 1) * tickMs - 1)

/** A timeline of `length` ticks of `tickMs`, every count 0, with a state column per field of `reader`. */
export function emptyTimeline(tickMs: number, length: number, reader: StateReader): Timeline {
  const column = () => new Float64Array(length)
  const start = column()
  for (let i = 0; i < length; i++) start[i] = i * tickMs
  const state: Record<string, Float64Array> = {}
  for (const field of reader.fields) state[field.name] = column()
  return {
    tickMs,
    length,
    start,
    sent: column(),
    admitted: column(),
    refused: column(),
    delayed: column(),
    released: column(),
    inWindow: column(),
    state,
  }
}

/** The units the watched key had admitted in the window ending at each tick's last millisecond. */
export function fillInWindow(
  timeline: Timeline,
  arrivals: Arrivals,
  allowed: Uint8Array,
  watch: number,
  w: number,
) {
  const { at, keyIndex, cost } = arrivals
  const n = at.length
  let next = 0 // the first request not yet added
  let left = 0 // the first request still in the window
  let units = 0
  for (let tick = 0; tick < timeline.length; tick++) {
    const t = sampleTime(timeline.tickMs, tick)
    for (; next < n && at[next]! <= t; next++) {
      if (allowed[next] && (keyIndex ? keyIndex[next] === watch : watch === 0))
        units += cost ? cost[next]! : 1
    }
    for (; left < next && at[left]! <= t - w; left++) {
      if (allowed[left] && (keyIndex ? keyIndex[left] === watch : watch === 0))
        units -= cost ? cost[left]! : 1
    }
    timeline.inWindow[tick] = units
  }
}
