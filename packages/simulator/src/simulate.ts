import { type Algorithm, type Duration, RateLimitConfigError } from '@floodgate/core'
import * as z from 'zod'
import { checkArrivals } from './arrivals-check.js'
import { type Decisions, decideArrivals, summarize } from './decisions.js'
import { type StateReader, stateReader } from './state/inner-state.js'
import { emptyTimeline, fillInWindow, type Summary, type Timeline } from './timeline.js'
import type { Arrivals, Traffic } from './traffic/types.js'
import { algorithmSchema, duration, key, parseOptions, traffic } from './validate.js'

/** Options of {@link simulate}. */
export interface SimulateOptions {
  /**
   * The algorithm under test, from `@floodgate/core`.
   * @example tokenBucket({ capacity: 10, refillRate: 1, interval: '100ms' })
   */
  algorithm: Algorithm
  /**
   * The requests: `steady(...)`, `burst(...)`, `poisson(...)`, `replay(...)`, `merge(...)`, ...
   * @example burst({ at: '1s', count: 11 })
   */
  traffic: Traffic
  /**
   * How long to simulate, from 0.
   * @example '3s'
   */
  duration: Duration
  /**
   * The timeline's resolution: one row per tick.
   * @default '100ms'
   * @example '10ms'
   */
  tick?: Duration
  /**
   * The key whose state the timeline records.
   * @default the traffic's first key
   * @example 'client-7'
   */
  watch?: string
}

/** The result of {@link simulate}. */
export interface Simulation {
  readonly algorithm: Algorithm
  /** The traffic's label. */
  readonly traffic: string
  readonly durationMs: number
  /** The requests that were sent. */
  readonly arrivals: Arrivals
  /** What each of them got. */
  readonly decisions: Decisions
  /** Per tick: sent, admitted, refused, delayed, released, and the watched key's state. */
  readonly timeline: Timeline
  /** The totals, and the most admitted in any rolling window. */
  readonly summary: Summary
  /** The key the timeline's state follows. */
  readonly watch: string
  /** How the timeline's state columns were decoded. */
  readonly reader: StateReader
}

const MAX_TICKS = 1_000_000

const schema = z.strictObject({
  algorithm: algorithmSchema,
  traffic: traffic(),
  duration: duration(),
  tick: duration().default(100),
  watch: key().optional(),
})

/**
 * Run an algorithm from `@floodgate/core` over a traffic pattern on a virtual clock: the algorithm's own
 * `consume` on a `Float64Array` per key, no timers, no store. Pure: the same inputs give the same result.
 * A million requests take well under a second (see `bench/suites/simulator.mjs`).
 *
 * @example
 * const { summary, timeline } = simulate({
 *   algorithm: tokenBucket({ capacity: 10, refillRate: 1, interval: '100ms' }),
 *   traffic: burst({ at: '1s', count: 11 }),
 *   duration: '2s',
 * })
 * summary.admitted // 10
 * timeline.state.tokens // tokens left at the end of each 100 ms tick
 */
export function simulate(options: SimulateOptions): Simulation {
  const o = parseOptions(schema, options, 'simulate')
  const algo = o.algorithm
  const ticks = Math.ceil(o.duration / o.tick)
  if (ticks > MAX_TICKS) {
    const expected = `at least ${o.duration / MAX_TICKS} ms for a duration of ${o.duration} ms (at most ${MAX_TICKS} ticks)`
    throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', 'simulate.tick', options.tick, expected)
  }
  const arrivals = checkArrivals(o.traffic.arrivals(o.duration), o.duration)
  const watch = o.watch === undefined ? 0 : arrivals.keys.indexOf(o.watch)
  if (watch < 0) {
    const some = arrivals.keys.slice(0, 3).join(', ')
    const expected = `one of the traffic's keys (${some}${arrivals.keys.length > 3 ? ', ...' : ''})`
    throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', 'simulate.watch', o.watch, expected)
  }
  const reader = stateReader(algo)
  const timeline = emptyTimeline(o.tick, ticks, reader)
  const decisions = decideArrivals(algo, arrivals, timeline, reader, watch)
  fillInWindow(timeline, arrivals, decisions.allowed, watch, algo.windowMs)
  return {
    algorithm: algo,
    traffic: o.traffic.label,
    durationMs: o.duration,
    arrivals,
    decisions,
    timeline,
    summary: summarize(arrivals, decisions, algo.windowMs),
    watch: arrivals.keys[watch] ?? '',
    reader,
  }
}
