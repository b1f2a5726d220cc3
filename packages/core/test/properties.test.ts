// Property tests (fast-check) for the invariants every algorithm promises.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type Algorithm,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '../src/index.js'

interface Admission {
  at: number
  cost: number
  delayMs: number
}

/** Arrival gaps (ms, many zero) and costs (whole units, mostly 1). */
const traffic = (maxGap: number, maxCost: number) =>
  fc.array(
    fc.record({
      gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: maxGap })),
      cost: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: maxCost })),
    }),
    { minLength: 1, maxLength: 300 },
  )

function run(algorithm: Algorithm, ops: { gap: number; cost: number }[], start: number) {
  const state = new Float64Array(algorithm.stateSize)
  const admitted: Admission[] = []
  let now = start
  for (const op of ops) {
    now += op.gap
    const decision = algorithm.consume(state, 0, now, op.cost)
    expect(decision.remaining).toBeGreaterThanOrEqual(0)
    expect(decision.remaining).toBeLessThanOrEqual(algorithm.limit)
    expect(Number.isInteger(decision.remaining)).toBe(true)
    if (decision.allowed) admitted.push({ at: now, cost: op.cost, delayMs: decision.delayMs })
  }
  return admitted
}

/** The most cost admitted in any half-open window [t, t + length) starting at an admission. */
function maxInWindow(admitted: Admission[], length: number, time = (a: Admission) => a.at) {
  const times = admitted.map((a) => ({ t: time(a), cost: a.cost })).sort((a, b) => a.t - b.t)
  let max = 0
  let sum = 0
  let lo = 0
  for (let hi = 0; hi < times.length; hi++) {
    sum += times[hi]!.cost
    while (times[hi]!.t - times[lo]!.t >= length) sum -= times[lo++]!.cost
    max = Math.max(max, sum)
  }
  return max
}

const start = fc.integer({ min: 0, max: 2_000_000_000_000 })

/** A window algorithm's parameters and traffic: (limit, window ms, ops, start). */
const windowCase = [
  fc.integer({ min: 1, max: 20 }),
  fc.integer({ min: 1, max: 5000 }),
  traffic(400, 4),
  start,
] as const

/** Admitted cost per clock-aligned window, by window index. */
function costPerWindow(admitted: Admission[], w: number): Map<number, number> {
  const perWindow = new Map<number, number>()
  for (const a of admitted) {
    const index = Math.floor(a.at / w)
    perWindow.set(index, (perWindow.get(index) ?? 0) + a.cost)
  }
  return perWindow
}

describe('never more than the limit in any window the algorithm promises', () => {
  it('fixed window: at most `limit` per aligned window', () => {
    fc.assert(
      fc.property(...windowCase, (limit, w, ops, t0) => {
        const admitted = run(fixedWindow({ limit, window: w }), ops, t0)
        for (const count of costPerWindow(admitted, w).values()) expect(count).toBeLessThanOrEqual(limit)
      }),
    )
  })

  it('sliding window log: at most `limit` in every rolling window', () => {
    fc.assert(
      fc.property(...windowCase, (limit, w, ops, t0) => {
        const admitted = run(slidingWindowLog({ limit, window: w }), ops, t0)
        expect(maxInWindow(admitted, w)).toBeLessThanOrEqual(limit)
      }),
    )
  })

  it('sliding window counter: at most `limit` per aligned window, and the weighted estimate never above it', () => {
    fc.assert(
      fc.property(...windowCase, (limit, w, ops, t0) => {
        const algorithm = slidingWindowCounter({ limit, window: w })
        const admitted = run(algorithm, ops, t0)
        const perWindow = costPerWindow(admitted, w)
        for (const [index, count] of perWindow) {
          expect(count).toBeLessThanOrEqual(limit)
          // At the last admission of the window, curr + prev * (1 - elapsed) <= limit.
          const last = admitted.filter((a) => Math.floor(a.at / w) === index).at(-1)!
          const prev = perWindow.get(index - 1) ?? 0
          expect(count * w + prev * (w - (last.at - index * w))).toBeLessThanOrEqual(limit * w)
        }
        // And in any rolling window, never more than twice the limit.
        expect(maxInWindow(admitted, w)).toBeLessThanOrEqual(2 * limit)
      }),
    )
  })

  const bucketBound = (name: string, make: (c: number, r: number, i: number) => Algorithm) =>
    it(`${name}: at most capacity + rate x elapsed in any span`, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 20 }),
          fc.integer({ min: 1, max: 10 }),
          fc.integer({ min: 1, max: 2000 }),
          traffic(300, 4),
          start,
          fc.integer({ min: 1, max: 3000 }),
          (capacity, rate, interval, ops, t0, span) => {
            const admitted = run(make(capacity, rate, interval), ops, t0)
            expect(maxInWindow(admitted, span + 1)).toBeLessThanOrEqual(
              capacity + (span * rate) / interval + 1e-9,
            )
          },
        ),
      )
    })
  bucketBound('token bucket', (capacity, refillRate, interval) =>
    tokenBucket({ capacity, refillRate, interval }),
  )
  bucketBound('leaky bucket (police)', (capacity, leakRate, interval) =>
    leakyBucket({ capacity, leakRate, interval }),
  )
  bucketBound('gcra', (burst, rate, period) => gcra({ rate, period, burst }))

  it('leaky bucket (shape): requests leave at most one per interval / rate, whatever arrives', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 10, max: 2000 }),
        traffic(300, 1),
        start,
        (capacity, leakRate, interval, ops, t0) => {
          const admitted = run(
            leakyBucket({ capacity, leakRate, interval, mode: 'shape' }),
            ops.map((o) => ({ ...o, cost: 1 })),
            t0,
          )
          const leaves = admitted.map((a) => a.at + a.delayMs).sort((a, b) => a - b)
          const spacing = interval / leakRate
          for (let i = 1; i < leaves.length; i++)
            expect(leaves[i]! - leaves[i - 1]!).toBeGreaterThanOrEqual(Math.floor(spacing))
        },
      ),
    )
  })
})

const every: [string, (limit: number) => Algorithm][] = [
  ['fixed window', (n) => fixedWindow({ limit: n, window: 1000 })],
  ['sliding window log', (n) => slidingWindowLog({ limit: n, window: 1000 })],
  ['sliding window counter', (n) => slidingWindowCounter({ limit: n, window: 1000 })],
  ['token bucket', (n) => tokenBucket({ capacity: n, refillRate: 3, interval: 1000 })],
  ['leaky bucket', (n) => leakyBucket({ capacity: n, leakRate: 3, interval: 1000 })],
  ['leaky bucket (shape)', (n) => leakyBucket({ capacity: n, leakRate: 3, interval: 1000, mode: 'shape' })],
  ['gcra', (n) => gcra({ rate: 3, period: 1000, burst: n })],
]

describe.each(every)('%s', (_name, make) => {
  it('a refused request changes no state; remaining stays within 0..limit', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), traffic(500, 3), start, (limit, ops, t0) => {
        const algorithm = make(limit)
        const state = new Float64Array(algorithm.stateSize)
        let now = t0
        for (const op of ops) {
          now += op.gap
          const before = Array.from(state)
          const decision = algorithm.consume(state, 0, now, op.cost)
          if (!decision.allowed) expect(Array.from(state)).toEqual(before)
          expect(decision.remaining).toBeGreaterThanOrEqual(0)
          expect(decision.remaining).toBeLessThanOrEqual(algorithm.limit)
          const peek = algorithm.peek(state, 0, now, 1)
          expect(peek.remaining).toBeLessThanOrEqual(algorithm.limit)
        }
      }),
    )
  })

  it('retryAfterMs is honest: waiting it passes, retrying 1 ms earlier does not', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        traffic(500, 3),
        start,
        fc.integer({ min: 1, max: 3 }),
        (limit, ops, t0, probeCost) => {
          const algorithm = make(limit)
          fc.pre(probeCost <= algorithm.limit)
          const state = new Float64Array(algorithm.stateSize)
          let now = t0
          for (const op of ops) {
            now += op.gap
            algorithm.consume(state, 0, now, op.cost)
          }
          const refused = algorithm.consume(state, 0, now, probeCost)
          if (refused.allowed) return
          expect(refused.retryAfterMs).toBeGreaterThan(0)
          expect(Number.isInteger(refused.retryAfterMs)).toBe(true)
          const early = algorithm.peek(state, 0, now + refused.retryAfterMs - 1, probeCost)
          expect(early.allowed).toBe(false)
          const onTime = algorithm.peek(state, 0, now + refused.retryAfterMs, probeCost)
          expect(onTime.allowed).toBe(true)
        },
      ),
    )
  })

  it('decisions are whole, non-negative numbers, whatever the cost; above the limit, never a retry', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), traffic(5000, 30), start, (limit, ops, t0) => {
        const algorithm = make(limit)
        const state = new Float64Array(algorithm.stateSize)
        let now = t0
        for (const op of ops) {
          now += op.gap
          for (const d of [
            algorithm.consume(state, 0, now, op.cost),
            algorithm.peek(state, 0, now, op.cost),
          ]) {
            for (const field of ['remaining', 'resetMs', 'retryAfterMs', 'delayMs'] as const) {
              expect(d[field], field).toBeGreaterThanOrEqual(0)
              if (field === 'retryAfterMs' && op.cost > limit) continue
              expect(Number.isInteger(d[field]), field).toBe(true)
            }
            // A cost no state can hold is refused with no retry to promise; any other refusal has one.
            if (op.cost > limit)
              expect(d.allowed === false && d.retryAfterMs === Number.POSITIVE_INFINITY).toBe(true)
            else if (!d.allowed) expect(Number.isFinite(d.retryAfterMs)).toBe(true)
          }
        }
      }),
    )
  })

  it('resetMs is when the quota is full again', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), traffic(500, 3), start, (limit, ops, t0) => {
        const algorithm = make(limit)
        const state = new Float64Array(algorithm.stateSize)
        let now = t0
        let last = algorithm.peek(state, 0, now, 1)
        for (const op of ops) {
          now += op.gap
          last = algorithm.consume(state, 0, now, op.cost)
        }
        expect(algorithm.peek(state, 0, now + last.resetMs, 1).remaining).toBe(algorithm.limit)
        expect(algorithm.expiresAt(state, 0)).toBeLessThanOrEqual(now + last.resetMs + 1e-3)
      }),
    )
  })
})

describe("a count above the limit (merged from other processes, as a SyncedStore's view is)", () => {
  it('is refused with remaining 0, never below', async () => {
    const { fixedWindow, calendarQuota } = await import('../src/index.js')
    const now = Date.UTC(2026, 0, 1, 12)
    const fw = fixedWindow({ limit: 5, window: '1h' })
    const fwState = new Float64Array([Math.floor(now / 3_600_000) * 3_600_000, 7])
    expect(fw.peek(fwState, 0, now, 1)).toMatchObject({ allowed: false, remaining: 0 })
    expect(fw.consume(fwState, 0, now, 1)).toMatchObject({ allowed: false, remaining: 0 })
    const quota = calendarQuota({ limit: 5, period: 'day' })
    const state = new Float64Array(quota.stateSize)
    for (let i = 0; i < 5; i++) quota.consume(state, 0, now, 1)
    state[1] = 7 // the day's count, past the limit
    expect(quota.peek(state, 0, now, 1)).toMatchObject({ allowed: false, remaining: 0 })
  })
})
