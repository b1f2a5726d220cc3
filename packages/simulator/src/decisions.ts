import type { Algorithm } from '@floodgate/core'
import { boundDelay } from '@floodgate/core/internal'
import type { StateReader } from './state/inner-state.js'
import { type Summary, sampleTime, type Timeline } from './timeline.js'
import type { Arrivals } from './traffic/types.js'
import { maxInWindow } from './windows.js'

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

/** The hot loop: every request through the algorithm, the timeline's counts and state filled on the way. */
export function decideArrivals(
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

/** The totals of a run, and the most one key had admitted in any rolling window of `windowMs`. */
export function summarize(arrivals: Arrivals, decisions: Decisions, windowMs: number): Summary {
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
