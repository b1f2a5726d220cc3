import { type Algorithm, type Duration, RateLimitConfigError } from '@floodgate/core'
import { boundDelay, normalizeCost } from '@floodgate/core/internal'
import { z } from 'zod'
import { type StateReader, stateReader } from './state/inner-state.js'
import type { Summary, Timeline } from './timeline.js'
import type { Arrivals, Traffic } from './traffic/types.js'
import { algorithmSchema, COST_EXPECTED, duration, isCost, key, parseOptions, traffic } from './validate.js'
import { maxInWindow } from './windows.js'

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

/** Every request's decision, as columns parallel to the arrivals. */
export interface Decisions {
  /** 1 when admitted, 0 when refused. */
  readonly allowed: Uint8Array
  /** How long an admitted request waits before it proceeds (shaping), in ms. */
  readonly delayMs: Float64Array
  /** For a refusal, ms until the same request could pass (`Infinity` when it never can). */
  readonly retryAfterMs: Float64Array
  /** Whole units left after the request. */
  readonly remaining: Float64Array
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

function emptyTimeline(tickMs: number, length: number, reader: StateReader): Timeline {
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
function fillInWindow(timeline: Timeline, arrivals: Arrivals, allowed: Uint8Array, watch: number, w: number) {
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

/**
 * A pattern's arrivals, checked once (a custom `Traffic` may break the rules): times finite, ascending, in
 * `[0, duration)` (later ones are dropped), key indices and costs valid.
 */
function checkArrivals(arrivals: Arrivals, durationMs: number): Arrivals {
  const { at, keyIndex, keys } = arrivals
  let n = at.length
  while (n > 0 && at[n - 1]! >= durationMs) n--
  const fail = (i: number, expected: string) => {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      `simulate.traffic (request ${i})`,
      at[i],
      expected,
    )
  }
  if (keys.length === 0) fail(0, 'at least one key')
  let cost = arrivals.cost
  let normalized = true
  for (let i = 0; i < n; i++) {
    const t = at[i]!
    if (!(t >= 0) || (i > 0 && t < at[i - 1]!)) fail(i, 'arrival times that are finite, >= 0 and ascending')
    if (keyIndex && !(keyIndex[i]! < keys.length)) fail(i, 'a key index below the number of keys')
    if (cost && !isCost(cost[i])) fail(i, `a cost that is ${COST_EXPECTED}`)
    if (cost && normalized && normalizeCost(cost[i]!) !== cost[i]) normalized = false
  }
  // Costs as core's limiter hands them to a store: rounded up to 1/1024
  if (cost && !normalized) cost = cost.map(normalizeCost)
  if (n === at.length && cost === arrivals.cost) return arrivals
  return { at: at.subarray(0, n), keys, keyIndex: keyIndex?.subarray(0, n), cost: cost?.subarray(0, n) }
}

/** The moment a tick's state is read: its last millisecond (its start, for ticks of 1 ms or less). */
const sampleTime = (tickMs: number, tick: number) => Math.max(tick * tickMs, (tick + 1) * tickMs - 1)

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
  const decisions = run(algo, arrivals, timeline, reader, watch)
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

/** The hot loop: every request through the algorithm, the timeline's counts and state filled on the way. */
function run(
  algo: Algorithm,
  arrivals: Arrivals,
  timeline: Timeline,
  reader: StateReader,
  watch: number,
): Decisions {
  const { at, keyIndex, cost } = arrivals
  const n = at.length
  const decisions: Decisions = {
    allowed: new Uint8Array(n),
    delayMs: new Float64Array(n),
    retryAfterMs: new Float64Array(n),
    remaining: new Float64Array(n),
  }
  const states: (Float64Array | undefined)[] = new Array(arrivals.keys.length)
  const fresh = new Float64Array(algo.stateSize)
  const fields = reader.fields.map((f) => timeline.state[f.name]!)
  const sample = new Float64Array(fields.length)
  const { tickMs, sent, admitted, refused, delayed, released } = timeline
  let tick = 0
  const recordState = (upTo: number) => {
    for (; tick < upTo; tick++) {
      reader.read(states[watch] ?? fresh, 0, sampleTime(tickMs, tick), sample)
      for (let f = 0; f < fields.length; f++) fields[f]![tick] = sample[f]!
    }
  }
  for (let i = 0; i < n; i++) {
    const t = at[i]!
    const row = Math.floor(t / tickMs)
    if (row > tick) recordState(row)
    const k = keyIndex ? keyIndex[i]! : 0
    let state = states[k]
    if (state === undefined) state = states[k] = new Float64Array(algo.stateSize)
    const units = cost ? cost[i]! : 1
    const d = algo.consume(state, 0, t, units)
    // A shaping bound (maxDelay): a request that would wait longer is refused, and spends nothing.
    if (boundDelay(algo, d)) algo.refund(state, 0, t, units)
    sent[row]!++
    decisions.remaining[i] = d.remaining
    if (d.allowed) {
      decisions.allowed[i] = 1
      admitted[row]!++
      decisions.delayMs[i] = d.delayMs
      if (d.delayMs > 0) delayed[row]!++
      const out = Math.floor((t + d.delayMs) / tickMs)
      if (out < released.length) released[out]!++
    } else {
      refused[row]!++
      decisions.retryAfterMs[i] = d.retryAfterMs
    }
  }
  recordState(timeline.length)
  return decisions
}

function summarize(arrivals: Arrivals, decisions: Decisions, windowMs: number): Summary {
  const n = arrivals.at.length
  let admitted = 0
  let delayed = 0
  let maxDelayMs = 0
  for (let i = 0; i < n; i++) {
    if (!decisions.allowed[i]) continue
    admitted++
    const delay = decisions.delayMs[i]!
    if (delay > 0) delayed++
    if (delay > maxDelayMs) maxDelayMs = delay
  }
  return {
    sent: n,
    admitted,
    refused: n - admitted,
    delayed,
    maxDelayMs,
    maxInWindow: maxInWindow(arrivals, n, decisions.allowed, windowMs),
  }
}
