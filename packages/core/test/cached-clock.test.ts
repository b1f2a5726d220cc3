import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { cachedClock } from '../src/internal.js'

describe('cachedClock', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  /** A clock over a wall the test moves, counting its reads. */
  function wallClock(start: number) {
    const wall = { now: start, reads: 0 }
    const clock = cachedClock(() => {
      wall.reads++
      return wall.now
    })
    return { wall, clock }
  }

  it('reads its source on every decision while decisions are sparse, and starts no timer', () => {
    vi.useFakeTimers()
    const { wall, clock } = wallClock(1_000)
    for (let i = 0; i < 100; i++) {
      wall.now += 1
      expect(clock()).toBe(wall.now) // exact: a new millisecond is seen at once
    }
    expect(wall.reads).toBe(100)
    expect(vi.getTimerCount()).toBe(0)
    // 31 decisions within one millisecond are still read one by one
    for (let i = 0; i < 30; i++) expect(clock()).toBe(wall.now)
    expect(wall.reads).toBe(130)
    expect(vi.getTimerCount()).toBe(0)
    clock.stop()
  })

  it('caches the reading once 32 decisions fall in one millisecond: at most one read per 256 in a burst', () => {
    vi.useFakeTimers()
    const { wall, clock } = wallClock(1_000)
    for (let i = 0; i < 32; i++) expect(clock()).toBe(1_000)
    expect(wall.reads).toBe(32)
    expect(vi.getTimerCount()).toBe(1) // the refresh timer
    wall.now = 1_005
    // the reading has served 32 decisions: 224 more before the clock is read again
    for (let i = 0; i < 224; i++) expect(clock()).toBe(1_000)
    expect(clock()).toBe(1_005) // a long burst still sees time move
    expect(wall.reads).toBe(33)
    for (let i = 0; i < 255; i++) clock()
    expect(wall.reads).toBe(33)
    clock.stop()
  })

  it('refreshes the cached reading every millisecond while 32 or more decisions fall in it', () => {
    vi.useFakeTimers()
    const { wall, clock } = wallClock(1_000)
    for (let i = 0; i < 32; i++) clock()
    wall.now = 1_001
    clock()
    vi.advanceTimersByTime(1) // 33 decisions in that millisecond: refreshed
    expect(wall.reads).toBe(33)
    expect(clock()).toBe(1_001)
    for (let i = 0; i < 31; i++) clock()
    wall.now = 1_002
    vi.advanceTimersByTime(1) // 32 again: refreshed, still cached
    expect(wall.reads).toBe(34)
    expect(clock()).toBe(1_002)
    expect(vi.getTimerCount()).toBe(1)
    clock.stop()
  })

  it('reads each time again after a millisecond with fewer than 32 decisions, not only after a quiet one', () => {
    vi.useFakeTimers()
    const { wall, clock } = wallClock(1_000)
    for (let i = 0; i < 32; i++) clock() // one dense burst
    vi.advanceTimersByTime(1) // refreshed: the burst's millisecond had 32
    wall.now = 1_002
    clock() // then one decision a millisecond, as a server at 1,000 requests a second
    vi.advanceTimersByTime(1) // a millisecond with one decision: the timer stops
    expect(vi.getTimerCount()).toBe(0)
    const reads = wall.reads
    wall.now = 1_003
    expect(clock()).toBe(1_003) // read afresh, exactly
    expect(wall.reads).toBe(reads + 1)
  })

  it('reads each time again after a quiet millisecond', () => {
    vi.useFakeTimers()
    const { wall, clock } = wallClock(1_000)
    for (let i = 0; i < 32; i++) clock()
    vi.advanceTimersByTime(1)
    vi.advanceTimersByTime(1) // no decision in it: the timer stops
    expect(vi.getTimerCount()).toBe(0)
    wall.now = 1_003
    expect(clock()).toBe(1_003)
  })

  it('reads afresh after stop()', () => {
    vi.useFakeTimers()
    const { wall, clock } = wallClock(0)
    for (let i = 0; i < 40; i++) clock()
    wall.now = 50
    clock.stop()
    expect(vi.getTimerCount()).toBe(0)
    expect(clock()).toBe(50)
    clock.stop()
  })

  it('never keeps the process alive, its refresh timer running', () => {
    // A source that never moves puts the clock in its cached mode, with the timer, after 32 calls.
    const entry = fileURLToPath(new URL('../dist/internal.js', import.meta.url))
    const script = `import(${JSON.stringify(entry)}).then((m) => {
      const clock = m.cachedClock(() => 0)
      for (let i = 0; i < 64; i++) clock()
      console.log(process.getActiveResourcesInfo().includes('Timeout') ? 'a timer holds the process' : 'done')
    })`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 15_000,
    })
    expect(result.stdout.trim()).toBe('done')
    expect(result.status).toBe(0) // a timer that held the process open would end in a timeout (status null)
  })
})
