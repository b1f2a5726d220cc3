import { RateLimitConfigError } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import {
  boundaryBurst,
  burst,
  merge,
  onOff,
  parseTrace,
  poisson,
  replay,
  seededRandom,
  steady,
} from '../src/index.js'

const times = (t: { arrivals(d: number): { at: Float64Array } }, durationMs: number) =>
  Array.from(t.arrivals(durationMs).at)

describe('steady', () => {
  it('spaces requests evenly, in whole ms, from start to end', () => {
    expect(times(steady({ rate: 3, per: '1s' }), 2000)).toEqual([0, 333, 666, 1000, 1333, 1666])
    expect(times(steady({ rate: 10, start: '1s', end: 1500 }), 5000)).toEqual([1000, 1100, 1200, 1300, 1400])
  })

  it('sends exactly rate x duration requests over a whole number of periods', () => {
    expect(steady({ rate: 100, per: '1m' }).arrivals(3_600_000).at.length).toBe(6000)
  })
})

describe('burst and boundaryBurst', () => {
  it('puts every request of a burst in the same millisecond', () => {
    expect(times(burst({ at: '1s', count: 3 }), 2000)).toEqual([1000, 1000, 1000])
    expect(times(burst({ at: '5s', count: 3 }), 2000)).toEqual([]) // after the end
  })

  it('straddles the boundary: the limit at :59 and the limit at 1:01', () => {
    const t = times(boundaryBurst({ limit: 2, window: '1m' }), 120_000)
    expect(t).toEqual([59_000, 59_000, 61_000, 61_000])
    expect(times(boundaryBurst({ limit: 1, window: '10s', boundary: '20s', offset: 10 }), 60_000)).toEqual([
      19_990, 20_010,
    ])
  })

  it('refuses an offset that reaches before 0', () => {
    expect(() => boundaryBurst({ limit: 1, window: '1s', offset: '2s' })).toThrow(/boundaryBurst\.offset/)
  })
})

describe('poisson', () => {
  it('is reproducible from its seed, and another seed gives other arrivals', () => {
    const a = times(poisson({ rate: 50, seed: 1 }), 10_000)
    expect(times(poisson({ rate: 50, seed: 1 }), 10_000)).toEqual(a)
    expect(times(poisson({ rate: 50, seed: 2 }), 10_000)).not.toEqual(a)
  })

  it('averages the rate, with the spread of a Poisson count', () => {
    // 200 per second for 1000 s: mean 200,000, standard deviation 447; this seed's count is within 3 sigma
    const n = poisson({ rate: 200, seed: 11 }).arrivals(1_000_000).at.length
    expect(Math.abs(n - 200_000)).toBeLessThan(3 * Math.sqrt(200_000))
  })

  it('spreads many keys evenly, each at the rate', () => {
    const a = poisson({ rate: 60, per: '1m', seed: 5, keys: 10 }).arrivals(600_000)
    expect(a.keys).toEqual(Array.from({ length: 10 }, (_, k) => `client-${k}`))
    const perKey = new Array(10).fill(0)
    for (const k of a.keyIndex!) perKey[k]++
    for (const count of perKey) expect(Math.abs(count - 600)).toBeLessThan(4 * Math.sqrt(600))
  })

  it('has gaps whose mean and spread are those of an exponential distribution', () => {
    const at = poisson({ rate: 1, per: 10, seed: 9 }).arrivals(1_000_000).at // mean gap 10 ms
    const gaps = at.slice(1).map((t, i) => t - at[i]!)
    const mean = gaps.reduce((s, g) => s + g, 0) / gaps.length
    const variance = gaps.reduce((s, g) => s + (g - mean) ** 2, 0) / gaps.length
    expect(mean).toBeGreaterThan(9.8)
    expect(mean).toBeLessThan(10.2)
    expect(Math.sqrt(variance)).toBeGreaterThan(9.5) // exponential: sd = mean (flooring to ms shaves a little)
    expect(Math.sqrt(variance)).toBeLessThan(10.5)
  })
})

describe('onOff', () => {
  it('sends at the rate while on and nothing while off', () => {
    expect(times(onOff({ rate: 10, on: 300, off: 700 }), 2500)).toEqual([
      0, 100, 200, 1000, 1100, 1200, 2000, 2100, 2200,
    ])
  })

  it('with a seed, is Poisson within each active period', () => {
    const t = times(onOff({ rate: 100, on: '1s', off: '9s', seed: 4 }), 100_000)
    expect(t.every((x) => x % 10_000 < 1000)).toBe(true)
    expect(Math.abs(t.length - 1000)).toBeLessThan(4 * Math.sqrt(1000))
  })
})

describe('replay', () => {
  it('sorts a trace (stable), shifts it to start at 0, and keeps keys and costs', () => {
    const a = replay([
      { at: 1_700_000_000_500, key: 'b', cost: 2 },
      { at: 1_700_000_000_000, key: 'a' },
      { at: 1_700_000_000_500, key: 'a' },
    ]).arrivals(10_000)
    expect(Array.from(a.at)).toEqual([0, 500, 500])
    expect(a.keys).toEqual(['a', 'b'])
    expect(Array.from(a.keyIndex!)).toEqual([0, 1, 0])
    expect(Array.from(a.cost!)).toEqual([1, 2, 1])
  })

  it('keeps epoch times with origin 0, and drops what falls after the end', () => {
    expect(times(replay([5, 10, 20], { origin: 0 }), 15)).toEqual([5, 10])
  })

  it('names the bad record', () => {
    const bad = (records: unknown[]) => () => replay(records as never)
    expect(bad([1, Number.NaN])).toThrow(RateLimitConfigError)
    expect(bad([1, Number.NaN])).toThrow(/replay\.records\[1\]/)
    expect(bad([{ at: 1, cost: -1 }])).toThrow(/replay\.records\[0\]\.cost/)
    expect(bad([{ at: 1, key: '' }])).toThrow(/replay\.records\[0\]\.key/)
    expect(() => replay([10], { origin: 20 })).toThrow(/replay\.origin/)
  })

  it('reads a text trace: timestamp, key, cost; header, comments and blank lines skipped', () => {
    const records = parseTrace('at,key,cost\n# recorded on the edge\n1000,alice\n\n1200\t bob \t3\n900\n')
    expect(records).toEqual([
      { at: 1000, key: 'alice', cost: 1 },
      { at: 1200, key: 'bob', cost: 3 },
      { at: 900, cost: 1 },
    ])
    expect(() => parseTrace('1000\nsoon,alice\n')).toThrow(/trace line 2/)
    expect(() => parseTrace('1000,alice,free\n')).toThrow(/trace line 1/)
  })
})

describe('merge', () => {
  it('interleaves patterns in time order and unites keys by name', () => {
    const a = merge(
      steady({ rate: 2, key: 'x' }),
      burst({ at: 500, count: 2, key: 'y' }),
      burst({ at: 0, count: 1, key: 'x' }),
    ).arrivals(1000)
    expect(Array.from(a.at)).toEqual([0, 0, 500, 500, 500])
    expect(a.keys).toEqual(['x', 'y'])
    expect(Array.from(a.keyIndex!)).toEqual([0, 0, 0, 1, 1])
  })
})

describe('options', () => {
  it('fail at creation with a RateLimitConfigError naming the option, the value and what is allowed', () => {
    expect(() => steady({ rate: -1 })).toThrow(
      'Expected `steady.rate` to be a finite number > 0 (requests per period), got -1 (number)',
    )
    expect(() => steady({ rate: 1, per: '1 parsec' as never })).toThrow(/steady\.per/)
    expect(() => poisson({ rate: 1, seed: 1.5 })).toThrow(/poisson\.seed/)
    expect(() => burst({ at: -5, count: 1 })).toThrow(/burst\.at/)
    expect(() => burst({ at: 0, count: 1, colour: 'red' } as never)).toThrow(/burst\.colour/)
    expect(() => onOff({ rate: 1, on: 0 as never, off: 1 })).toThrow(/onOff\.on/)
  })
})

describe('seededRandom', () => {
  it('is uniform on [0, 1) and repeats from its seed', () => {
    const r = seededRandom(123)
    const xs = Array.from({ length: 100_000 }, r)
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0)
    expect(Math.max(...xs)).toBeLessThan(1)
    const buckets = new Array(10).fill(0)
    for (const x of xs) buckets[Math.floor(x * 10)]++
    for (const b of buckets) expect(Math.abs(b - 10_000)).toBeLessThan(400)
    const again = seededRandom(123)
    expect(Array.from({ length: 5 }, again)).toEqual(xs.slice(0, 5))
  })
})

describe('steady with many keys', () => {
  it('sends at the rate from every key, their phases spread over one gap', () => {
    const a = steady({ rate: 1, per: 1000, keys: 4 }).arrivals(2000)
    expect(Array.from(a.at)).toEqual([0, 250, 500, 750, 1000, 1250, 1500, 1750])
    expect(Array.from(a.keyIndex!)).toEqual([0, 1, 2, 3, 0, 1, 2, 3])
    expect(a.keys).toEqual(['client-0', 'client-1', 'client-2', 'client-3'])
  })
})
