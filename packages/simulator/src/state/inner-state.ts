import type { Algorithm } from '@floodgate/core'
import type { AlgorithmKind } from '@floodgate/core/internal'
import { periodOf } from '@floodgate/core/internal'

/** What a gauge of the state shows: one field against its full scale. */
export interface Gauge {
  /** The field the gauge shows. */
  readonly field: string
  /** Its full scale (the capacity, the limit, the burst). */
  readonly max: number
  /** `'available'`: a full gauge is a rested key (tokens); `'used'`: a full gauge is a key at its limit. */
  readonly reads: 'available' | 'used'
}

/**
 * Reads an algorithm's state (its numbers in a `Float64Array`, laid out as the algorithm's TSDoc documents)
 * as the quantities people draw: tokens, level, window counts, the sliding estimate.
 */
export interface StateReader {
  /** The fields `read` writes, in order, with their units. */
  readonly fields: readonly { readonly name: string; readonly unit: string }[]
  /** The field a gauge or a bucket drawing shows. */
  readonly gauge: Gauge
  /** Decode the state at offset `at` as it stands at `now` into `out`, one number per field. */
  read(state: Float64Array, at: number, now: number, out: Float64Array): void
}

type Params = Readonly<Record<string, number>>
type ReaderFactory = (p: Params) => StateReader

const units = (limit: number) => ({ name: 'count', unit: limit === 1 ? 'unit' : 'units' })

/** A bucket's level in units at `now`: `[level x interval, lastUpdate]`, draining `rate` per `interval`. */
const bucketLevel = (s: Float64Array, at: number, now: number, p: Params) => {
  const scaled = s[at]!
  if (scaled <= 0) return 0
  const elapsed = now - s[at + 1]!
  return (elapsed > 0 ? Math.max(0, scaled - elapsed * p.rate!) : scaled) / p.intervalMs!
}

const readers: Record<AlgorithmKind, ReaderFactory> = {
  // [periodStart, count]: a day, ISO week or month at a fixed offset from UTC
  'calendar-quota': (p) => ({
    fields: [units(p.limit!)],
    gauge: { field: 'count', max: p.limit!, reads: 'used' },
    read(s, at, now, out) {
      out[0] = s[at] === periodOf(now, p.period!, p.offsetMs!)[0] ? s[at + 1]! : 0
    },
  }),
  // [lease, expiry] x limit: a unit is held while its expiry is after now
  concurrency: (p) => ({
    fields: [units(p.limit!)],
    gauge: { field: 'count', max: p.limit!, reads: 'used' },
    read(s, at, now, out) {
      let held = 0
      for (let i = 0; i < p.limit!; i++) if (s[at + 2 * i + 1]! > now) held++
      out[0] = held
    },
  }),
  // [windowStart, count]
  'fixed-window': (p) => ({
    fields: [units(p.limit!)],
    gauge: { field: 'count', max: p.limit!, reads: 'used' },
    read(s, at, now, out) {
      out[0] = s[at] === Math.floor(now / p.windowMs!) * p.windowMs! ? s[at + 1]! : 0
    },
  }),
  // [head, e0 ... e(limit-1)]: expiry times; an entry is live while its expiry is after now
  'sliding-window-log': (p) => ({
    fields: [units(p.limit!)],
    gauge: { field: 'count', max: p.limit!, reads: 'used' },
    read(s, at, now, out) {
      let live = 0
      for (let i = 1; i <= p.limit!; i++) if (s[at + i]! > now) live++
      out[0] = live
    },
  }),
  // [windowStart, current, previous]
  'sliding-window-counter': (p) => ({
    fields: [
      { name: 'current', unit: 'units' },
      { name: 'previous', unit: 'units' },
      { name: 'estimate', unit: 'units' },
    ],
    gauge: { field: 'estimate', max: p.limit!, reads: 'used' },
    read(s, at, now, out) {
      const w = p.windowMs!
      const start = Math.floor(now / w) * w
      const current = s[at] === start ? s[at + 1]! : 0
      const previous = s[at] === start ? s[at + 2]! : s[at] === start - w ? s[at + 1]! : 0
      out[0] = current
      out[1] = previous
      out[2] = current + (previous * (w - (now - start))) / w
    },
  }),
  // [tokensUsed x interval, lastUpdate]
  'token-bucket': (p) => ({
    fields: [{ name: 'tokens', unit: 'tokens' }],
    gauge: { field: 'tokens', max: p.capacity!, reads: 'available' },
    read(s, at, now, out) {
      out[0] = p.capacity! - bucketLevel(s, at, now, p)
    },
  }),
  // [level x interval, lastUpdate]; `wait` is the delay a shaped request admitted now would get
  'leaky-bucket': (p) => ({
    fields: [
      { name: 'level', unit: 'requests' },
      { name: 'wait', unit: 'ms' },
    ],
    gauge: { field: 'level', max: p.capacity!, reads: 'used' },
    read(s, at, now, out) {
      const level = bucketLevel(s, at, now, p)
      out[0] = level
      out[1] = (level * p.intervalMs!) / p.rate!
    },
  }),
  // [tat]: the theoretical arrival time; a request passes while tat - now stays within the tolerance
  gcra: (p) => ({
    fields: [
      { name: 'ahead', unit: 'ms' },
      { name: 'available', unit: 'requests' },
    ],
    gauge: { field: 'available', max: p.burst!, reads: 'available' },
    read(s, at, now, out) {
      const ahead = Math.max(0, s[at]! - now)
      out[0] = ahead
      // At most the tolerance ahead; a TAT computed at large timestamps can pass it by a rounding error
      out[1] = Math.max(0, (p.toleranceMs! - ahead) / p.emissionMs!)
    },
  }),
}

/**
 * The reader of `algorithm`'s state. One small decoder per kind, following the state layout each
 * algorithm's TSDoc documents; a test checks every decoder against the algorithm's own `peek`.
 *
 * @example
 * const reader = stateReader(tokenBucket({ capacity: 10, refillRate: 1, interval: '100ms' }))
 * reader.read(state, 0, now, out) // out[0] = tokens left
 */
export function stateReader(algorithm: Algorithm): StateReader {
  const factory = readers[algorithm.kind]
  if (!factory) throw new TypeError(`stateReader: no reader for the algorithm kind '${algorithm.kind}'`)
  return factory(algorithm.params)
}

/** The decoded state as a record, `{ tokens: 7.5 }`: handy outside hot loops. */
export function readState(reader: StateReader, state: Float64Array, now: number): Record<string, number> {
  const out = new Float64Array(reader.fields.length)
  reader.read(state, 0, now, out)
  const record: Record<string, number> = {}
  reader.fields.forEach((f, i) => {
    record[f.name] = out[i]!
  })
  return record
}
