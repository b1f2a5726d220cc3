// The sliding window counter against the exact sliding log: disagreements both ways, and the overshoot bound.
import { fixedWindow, slidingWindowCounter, slidingWindowLog } from '@floodgate/core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { boundaryBurst, burst, compare, judge, merge, replay, simulate, steady } from '../src/index.js'

const pair = (limit: number, window: number) =>
  [slidingWindowCounter({ limit, window }), slidingWindowLog({ limit, window })] as const

describe('compare', () => {
  it('counts a request only the counter admits (the boundary burst: 101 against 100)', () => {
    const c = compare({
      algorithms: pair(100, 60_000),
      traffic: boundaryBurst({ limit: 100 }),
      duration: '3m',
    })
    expect(c.onlyFirst).toBe(1)
    expect(c.onlySecond).toBe(0)
    expect(judge(c.simulations[0])).toEqual({ wronglyAdmitted: 1, wronglyRefused: 0 })
    expect(judge(c.simulations[1])).toEqual({ wronglyAdmitted: 0, wronglyRefused: 0 })
  })

  it('counts a request only the log admits (the estimate still weighs requests that left the window)', () => {
    // limit 2 a second: requests at 0 and 10 ms; at 1100 ms both have left the log's window, but the
    // counter still weighs them at 0.9: 2 x 0.9 + 1 > 2
    const c = compare({
      algorithms: pair(2, 1000),
      traffic: replay([0, 10, 1100], { origin: 0 }),
      duration: '3s',
    })
    expect([c.onlyFirst, c.onlySecond]).toEqual([0, 1])
    expect(judge(c.simulations[0])).toEqual({ wronglyAdmitted: 0, wronglyRefused: 1 })
  })

  it('runs both algorithms over the very same requests', () => {
    const c = compare({ algorithms: pair(5, 1000), traffic: steady({ rate: 7 }), duration: '5s' })
    expect(c.simulations[0].arrivals).toBe(c.simulations[1].arrivals)
  })
})

describe('the overshoot bound of the sliding window counter', () => {
  const limit = 100
  const window = 60_000
  // A full window's worth just before the boundary, then one request every millisecond after it
  const worst = merge(
    burst({ at: window - 1, count: limit }),
    steady({ rate: 1, per: 1, start: window, end: 2 * window }),
  )

  it('reaches 2 x limit - 1 in a rolling window, where a fixed window reaches 2 x limit', () => {
    const counter = simulate({
      algorithm: slidingWindowCounter({ limit, window }),
      traffic: worst,
      duration: '3m',
    })
    expect(counter.summary.maxInWindow.units).toBe(2 * limit - 1)
    const fixed = simulate({ algorithm: fixedWindow({ limit, window }), traffic: worst, duration: '3m' })
    expect(fixed.summary.maxInWindow.units).toBe(2 * limit)
    const log = simulate({ algorithm: slidingWindowLog({ limit, window }), traffic: worst, duration: '3m' })
    expect(log.summary.maxInWindow.units).toBe(limit)
  })

  it('never goes beyond 2 x limit - 1, nor beyond the limit in an aligned window, whatever the traffic', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.integer({ min: 0, max: 4000 }), { maxLength: 200 }),
        (small, times) => {
          const sim = simulate({
            algorithm: slidingWindowCounter({ limit: small, window: 1000 }),
            traffic: replay(times, { origin: 0 }),
            duration: 5000,
            tick: 1000,
          })
          expect(sim.summary.maxInWindow.units).toBeLessThanOrEqual(2 * small - 1)
          for (const admitted of sim.timeline.admitted) expect(admitted).toBeLessThanOrEqual(small)
        },
      ),
      { numRuns: 200 },
    )
  })
})
