import {
  gcra,
  RateLimitConfigError,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'
import { algorithmCases } from '@floodgate/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  burst,
  merge,
  poisson,
  replay,
  type Simulation,
  simulate,
  steady,
  type Traffic,
} from '../src/index.js'

const sum = (xs: ArrayLike<number>) => Array.from(xs).reduce((s, x) => s + x, 0)

/** The most admitted units per key in any window (t - w, t], counted the slow way. */
function naiveMaxInWindow(sim: Simulation): number {
  const { at, keyIndex, cost } = sim.arrivals
  let best = 0
  for (let i = 0; i < at.length; i++) {
    if (!sim.decisions.allowed[i]) continue
    let units = 0
    for (let j = 0; j <= i; j++) {
      const sameKey = (keyIndex?.[j] ?? 0) === (keyIndex?.[i] ?? 0)
      if (sameKey && sim.decisions.allowed[j] && at[j]! > at[i]! - sim.algorithm.windowMs)
        units += cost?.[j] ?? 1
    }
    best = Math.max(best, units)
  }
  return best
}

const randomTrace = fc.array(
  fc.record({
    at: fc.integer({ min: 0, max: 5000 }),
    key: fc.constantFrom('a', 'b', 'c'),
    cost: fc.constantFrom(1, 1, 2),
  }),
  { maxLength: 120 },
)

describe.each(algorithmCases)('simulate with $name', ({ create }) => {
  it('keeps the timeline, the decisions and the summary consistent, and counts rolling windows exactly', () => {
    fc.assert(
      fc.property(randomTrace, (records) => {
        const sim = simulate({
          algorithm: create(),
          traffic: replay(records, { origin: 0 }),
          duration: 6000,
          tick: 250,
        })
        const { timeline: t, summary: s, decisions: d } = sim
        expect(sum(t.sent)).toBe(records.length)
        expect(sum(t.admitted)).toBe(s.admitted)
        expect(sum(t.refused)).toBe(s.refused)
        expect(sum(t.delayed)).toBe(s.delayed)
        expect(s.admitted + s.refused).toBe(s.sent)
        expect(sum(d.allowed)).toBe(s.admitted)
        expect(sum(t.released)).toBeLessThanOrEqual(s.admitted)
        expect(s.maxInWindow.units).toBe(naiveMaxInWindow(sim))
      }),
      { numRuns: 40 },
    )
  })

  it('is pure: the same inputs give the same result', () => {
    const traffic = poisson({ rate: 8, seed: 3, keys: 3 })
    const a = simulate({ algorithm: create(), traffic, duration: '10s' })
    const b = simulate({ algorithm: create(), traffic, duration: '10s' })
    expect(b.decisions).toEqual(a.decisions)
    expect(b.timeline).toEqual(a.timeline)
  })
})

describe('simulate', () => {
  const bucket = () => tokenBucket({ capacity: 3, refillRate: 1, interval: '1s' })

  it('keeps one state per key: two clients bursting each get the full capacity', () => {
    const traffic = merge(burst({ at: 0, count: 5, key: 'a' }), burst({ at: 0, count: 5, key: 'b' }))
    const sim = simulate({ algorithm: bucket(), traffic, duration: '1s', watch: 'b' })
    expect(sim.summary).toMatchObject({ admitted: 6, refused: 4 })
    expect(sim.watch).toBe('b')
    expect(sim.timeline.state.tokens![0]).toBeCloseTo(0.099, 10) // b's bucket, read at 99 ms
  })

  it('records the inner state of every kind', () => {
    const traffic = steady({ rate: 20 })
    const fields = (algorithm: Parameters<typeof simulate>[0]['algorithm']) =>
      Object.keys(simulate({ algorithm, traffic, duration: '1s' }).timeline.state)
    expect(fields(slidingWindowCounter({ limit: 5, window: '1s' }))).toEqual([
      'current',
      'previous',
      'estimate',
    ])
    expect(fields(slidingWindowLog({ limit: 5, window: '1s' }))).toEqual(['count'])
    expect(fields(gcra({ rate: 5 }))).toEqual(['ahead', 'available'])
  })

  it('counts in the timeline what an exact sliding log would see in the window', () => {
    const sim = simulate({
      algorithm: bucket(),
      traffic: steady({ rate: 1, per: 500 }),
      duration: '6s',
      tick: '1s',
    })
    // capacity 3, refill 1 a second, 2 requests a second: admitted at 0, 0.5, 1, 1.5 and 2 s (the burst
    // and the refill), then at 3, 4 and 5 s; the window is the 3 s the bucket takes to refill
    expect(Array.from(sim.timeline.inWindow)).toEqual([2, 4, 5, 4, 3, 3])
    expect(sim.summary.maxInWindow).toMatchObject({ units: 5, windowMs: 3000, key: 'client', at: 2000 })
  })

  it('refuses bad options with a RateLimitConfigError naming them', () => {
    const ok = { algorithm: bucket(), traffic: steady({ rate: 1 }), duration: '1s' } as const
    const fails = (options: object, pattern: RegExp) => {
      expect(() => simulate({ ...ok, ...options } as never)).toThrow(RateLimitConfigError)
      expect(() => simulate({ ...ok, ...options } as never)).toThrow(pattern)
    }
    fails({ duration: undefined }, /simulate\.duration/)
    fails({ algorithm: { kind: 'token-bucket' } }, /simulate\.algorithm/)
    fails({ traffic: [1, 2, 3] }, /simulate\.traffic/)
    fails({ tick: '1ms', duration: '1h' }, /simulate\.tick/)
    fails({ watch: 'nobody' }, /simulate\.watch.*client/)
    fails({ speed: 2 }, /simulate\.speed/)
  })

  it('counts costs as core does: 0 is free, fractions round up to 1/1024', () => {
    const traffic = replay(
      [
        { at: 0, cost: 0 },
        { at: 0, cost: 0 },
        { at: 0, cost: 0.5 },
        { at: 0, cost: 0.1 },
        { at: 0, cost: 0.4 },
      ],
      { origin: 0 },
    )
    const sim = simulate({
      algorithm: tokenBucket({ capacity: 1, refillRate: 1, interval: '1h' }),
      traffic,
      duration: 10,
    })
    // 0.1 counts as 103/1024 and 0.4 as 410/1024: 0.5 + 0.1006 + 0.4004 > 1
    expect(Array.from(sim.decisions.allowed)).toEqual([1, 1, 1, 1, 0])
    expect(sim.arrivals.cost![3]).toBe(103 / 1024)
  })

  it('refuses a hand-made traffic whose times go backwards', () => {
    const backwards: Traffic = {
      label: 'backwards',
      arrivals: () => ({ at: Float64Array.of(5, 3), keys: ['k'], keyIndex: undefined, cost: undefined }),
    }
    expect(() => simulate({ algorithm: bucket(), traffic: backwards, duration: 10 })).toThrow(
      /request 1.*ascending/,
    )
  })
})

describe('a bounded shaping bucket (maxDelay)', () => {
  it('refuses what would wait longer than maxDelay, and spends nothing for it', async () => {
    const { leakyBucket } = await import('@floodgate/core')
    const { burst } = await import('../src/index.js')
    const result = simulate({
      algorithm: leakyBucket({
        capacity: 10,
        leakRate: 1,
        interval: '100ms',
        mode: 'shape',
        maxDelay: '300ms',
      }),
      traffic: burst({ at: 0, count: 10 }),
      duration: '1s',
    })
    expect(result.summary.admitted).toBe(4) // waits of 0, 100, 200 and 300 ms
    expect(result.summary.refused).toBe(6)
  })
})
