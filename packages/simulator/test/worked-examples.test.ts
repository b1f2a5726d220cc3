// The worked examples of the rate-limiting guides, run through the simulator: the numbers the documents print are the ones we get.
import {
  fixedWindow,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { boundaryBurst, burst, merge, simulate } from '../src/index.js'

const bucketOfTen = () => tokenBucket({ capacity: 10, refillRate: 1, interval: '100ms' })

describe('a token bucket of capacity 10, refilled 1 token / 100 ms', () => {
  // idle for 1s -> full; burst of 10 -> all allowed; 11th -> 429; after 100ms -> 1 token -> 1 request allowed
  const sim = simulate({
    algorithm: bucketOfTen(),
    traffic: merge(burst({ at: '1s', count: 11 }), burst({ at: 1100, count: 2 })),
    duration: '3s',
    tick: '100ms',
  })

  it('admits the burst of 10, refuses the 11th with a retry of 100 ms, then admits one after 100 ms', () => {
    expect(Array.from(sim.decisions.allowed)).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0])
    expect(sim.decisions.retryAfterMs[10]).toBe(100)
    expect(sim.summary).toMatchObject({ sent: 13, admitted: 11, refused: 2, delayed: 0 })
  })

  it('draws the bucket: full while idle, empty after the burst, refilling 1 token per 100 ms', () => {
    const tokens = sim.timeline.state.tokens!
    expect(tokens[0]).toBe(10) // idle
    expect(tokens[9]).toBe(10)
    expect(tokens[10]).toBeCloseTo(0.99, 10) // the burst at 1.0 s, read at 1.099 s: 99 ms of refill
    expect(tokens[11]).toBeCloseTo(0.99, 10) // one more spent at 1.1 s
    expect(tokens[20]).toBeCloseTo(9.99, 10) // read at 2.099 s: 999 ms after the last spend
    expect(tokens[21]).toBe(10) // full again
    expect(Array.from(sim.timeline.admitted.slice(9, 13))).toEqual([0, 10, 1, 0])
    expect(Array.from(sim.timeline.refused.slice(9, 13))).toEqual([0, 1, 1, 0])
  })
})

describe('the boundary burst: 100 at 12:00:59, 100 at 12:01:01, limit 100 a minute', () => {
  const traffic = boundaryBurst({ limit: 100, window: '1m' })
  const run = (algorithm: Parameters<typeof simulate>[0]['algorithm']) =>
    simulate({ algorithm, traffic, duration: '3m', tick: '1s' })
  const limit = { limit: 100, window: '1m' } as const

  it('passes 200 in two seconds through a fixed window: twice the limit', () => {
    const sim = run(fixedWindow(limit))
    expect(sim.summary.admitted).toBe(200)
    expect(sim.summary.maxInWindow.units).toBe(200)
    expect(Math.max(...sim.timeline.inWindow)).toBe(200)
  })

  it('passes exactly 100 through the sliding log', () => {
    const sim = run(slidingWindowLog(limit))
    expect(sim.summary.admitted).toBe(100)
    expect(sim.summary.maxInWindow.units).toBe(100)
  })

  it('passes 101 through the sliding counter: its estimate weighs the first burst at 59/60', () => {
    const sim = run(slidingWindowCounter(limit))
    // at 61 s: 100 x (1 - 1/60) = 98.3, so one more request fits under 100 and the second does not
    expect(sim.summary.admitted).toBe(101)
    expect(sim.summary.maxInWindow.units).toBe(101)
    expect(sim.timeline.state.estimate![61]).toBeCloseTo(1 + 100 * (1 - 1.999 / 60), 6) // read at 61.999 s
  })
})

describe('a leaky bucket of size 10, leaking 1 request / 100 ms', () => {
  const options = { capacity: 10, leakRate: 1, interval: '100ms' } as const
  const traffic = burst({ at: 0, count: 11 })

  it('shape: queues the burst and releases exactly 1 per 100 ms; the 11th is dropped', () => {
    const sim = simulate({ algorithm: leakyBucket({ ...options, mode: 'shape' }), traffic, duration: '2s' })
    expect(Array.from(sim.decisions.delayMs.slice(0, 10))).toEqual([
      0, 100, 200, 300, 400, 500, 600, 700, 800, 900,
    ])
    expect(sim.decisions.allowed[10]).toBe(0)
    expect(Array.from(sim.timeline.released.slice(0, 11))).toEqual([1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0])
    expect(sim.summary).toMatchObject({ admitted: 10, delayed: 9, maxDelayMs: 900 })
  })

  it('police: lets the 10 through at once and refuses the 11th', () => {
    const sim = simulate({ algorithm: leakyBucket(options), traffic, duration: '2s' })
    expect(Array.from(sim.timeline.released.slice(0, 2))).toEqual([10, 0])
    expect(sim.summary).toMatchObject({ admitted: 10, refused: 1, delayed: 0 })
  })
})
