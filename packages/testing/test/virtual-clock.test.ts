import { RateLimitConfigError } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { virtualClock, virtualTimers } from '../src/index.js'

describe('virtualClock', () => {
  it('moves only when told: advance by a duration, set to an instant', () => {
    const clock = virtualClock(1_000)
    expect(clock.now()).toBe(1_000)
    expect(clock.advance(250)).toBe(1_250)
    expect(clock.set(5_000)).toBe(5_000)
    const { now } = clock // a function of its own, as the `clock` option takes it
    expect(now()).toBe(5_000)
  })

  it('refuses a time that is not a finite number, naming the call, and keeps its time', () => {
    const clock = virtualClock(0)
    expect(() => virtualClock(Number.NaN)).toThrow(RateLimitConfigError)
    expect(() => clock.advance('1s' as unknown as number)).toThrow(/`clock.advance\(ms\)`.*'1s' \(string\)/)
    expect(() => clock.set(Number.POSITIVE_INFINITY)).toThrow(/`clock.set\(ms\)`/)
    expect(clock.now()).toBe(0)
  })
})

describe('virtualTimers', () => {
  it('fires each timer at its own time, in order, as the clock is advanced', () => {
    const clock = virtualClock(0)
    const timers = virtualTimers(clock)
    const fired: [string, number][] = []
    timers.set(() => fired.push(['b', clock.now()]), 200)
    timers.set(() => fired.push(['a', clock.now()]), 100)
    const c = timers.set(() => fired.push(['c', clock.now()]), 150)
    timers.clear(c)
    timers.advance(150)
    expect(fired).toEqual([['a', 100]])
    timers.advance(100)
    expect(fired).toEqual([
      ['a', 100],
      ['b', 200],
    ])
    expect(clock.now()).toBe(250)
    expect(timers.pending).toBe(0)
  })

  it('moving back moves every pending timer with the clock: still as far away', () => {
    const clock = virtualClock(10_000)
    const timers = virtualTimers(clock)
    const fired: number[] = []
    timers.set(() => fired.push(clock.now()), 50)
    timers.advance(-5_000)
    expect(clock.now()).toBe(5_000)
    timers.advance(49)
    expect(fired).toEqual([])
    timers.advance(1)
    expect(fired).toEqual([5_050])
  })
})
