import { type Algorithm, RateLimitConfigError } from '@floodgate/core'

/**
 * The algorithms a SyncedStore can count locally: the two that count units per aligned window. Their state is
 * a count per window start, so counts made in several processes add up, whatever order they arrive in; the
 * sync script adds each process's delta to the RedisStore's own state for the key.
 */
export type SyncedKind = 'fixed-window' | 'sliding-window-counter'

/** What the SyncedStore does with one kind of state: the same merge the sync script does in Redis. */
export interface WindowKind {
  /** The code the sync script dispatches on. */
  readonly code: 'fw' | 'swc'
  readonly stateSize: 2 | 3
  /**
   * Add `amount` units (negative: units given back) counted in the window starting at `start` to the state at
   * offset `at` of `state`, in place. A delta for a window older than the state's is dropped (it no longer counts); a window never goes
   * below 0. Mirrors `merge_fw` / `merge_swc` in the sync script.
   */
  merge(state: Float64Array, at: number, start: number, amount: number, windowMs: number): void
  /** How many units the state at offset `at` of `state` counts against the limit at `now`. */
  used(state: Float64Array, at: number, now: number, windowMs: number): number
  /**
   * Move the state at offset `at` of `state` into the window starting at `start` when its own is older: the same
   * counts at every moment of that window, as the algorithm's next admission there would leave them.
   */
  roll(state: Float64Array, at: number, start: number, windowMs: number): void
}

const fixedWindow: WindowKind = {
  code: 'fw',
  stateSize: 2,
  merge(s, at, start, amount, _w) {
    if (amount === 0) return
    if (start === s[at]) s[at + 1] = Math.max(0, s[at + 1]! + amount)
    else if (start > s[at]! && amount > 0) {
      s[at] = start
      s[at + 1] = amount
    }
  },
  used: (s, at, now, w) => (s[at] === Math.floor(now / w) * w ? s[at + 1]! : 0),
  roll(s, at, start, _w) {
    if (!(s[at]! < start)) return
    s[at] = start
    s[at + 1] = 0
  },
}

const slidingWindowCounter: WindowKind = {
  code: 'swc',
  stateSize: 3,
  merge(s, at, start, amount, w) {
    if (amount === 0) return
    const stored = s[at]!
    if (start === stored) s[at + 1] = Math.max(0, s[at + 1]! + amount)
    else if (start === stored - w) s[at + 2] = Math.max(0, s[at + 2]! + amount)
    else if (start > stored && amount > 0) {
      s[at + 2] = start === stored + w ? s[at + 1]! : 0
      s[at + 1] = amount
      s[at] = start
    }
  },
  used(s, at, now, w) {
    const start = Math.floor(now / w) * w
    let curr = 0
    let prev = 0
    if (s[at] === start) {
      curr = s[at + 1]!
      prev = s[at + 2]!
    } else if (s[at] === start - w) {
      prev = s[at + 1]!
    }
    return curr + (prev * (w - (now - start))) / w
  },
  roll(s, at, start, w) {
    const stored = s[at]!
    if (!(stored < start)) return
    s[at + 2] = stored === start - w ? s[at + 1]! : 0
    s[at + 1] = 0
    s[at] = start
  },
}

const KINDS: Partial<Record<Algorithm['kind'], WindowKind>> = {
  'fixed-window': fixedWindow,
  'sliding-window-counter': slidingWindowCounter,
}

/** The start of the aligned window `now` falls in. */
export const windowStart = (now: number, windowMs: number): number => Math.floor(now / windowMs) * windowMs

/** Whether `now` is less than `edge` ms from either end of its aligned window. */
export function nearEdge(now: number, windowMs: number, edge: number): boolean {
  const into = now - windowStart(now, windowMs)
  return into < edge || into >= windowMs - edge
}

/**
 * The window kind of `algorithm`, or a `RateLimitConfigError` saying which algorithms a SyncedStore runs and
 * why: a bucket's or GCRA's state is a level that drains with time, so counts made apart do not add up into it,
 * and a sliding log's state is one timestamp per request.
 */
export function windowKindOf(algorithm: Algorithm): WindowKind {
  const kind = KINDS[algorithm.kind]
  if (kind) return kind
  throw new RateLimitConfigError(
    'ERR_FLOODGATE_INVALID_OPTION',
    'SyncedStore.algorithm',
    algorithm.kind,
    'fixedWindow(...) or slidingWindowCounter(...): a SyncedStore counts units per window locally and adds ' +
      'the counts up in Redis; use a RedisStore for the sliding log, the buckets and GCRA',
  )
}
