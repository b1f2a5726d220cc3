import { describe, expect, it } from 'vitest'
import { serverClock } from '../src/synced/server-clock.js'

// The SyncedStore's estimate of the Redis server's clock, on a local clock the test moves.
describe('the server clock a SyncedStore decides on', () => {
  const setup = (start = 1_000_000) => {
    let local = start
    const clock = serverClock(() => local)
    const move = (to: number) => {
      local = to
    }
    return { clock, move }
  }

  it('adopts the first measurement at once, to within half its round trip, in whole ms', () => {
    const { clock } = setup()
    expect(clock.now()).toBe(1_000_000)
    // Sent at 1,000,000, answered at 1,000,010, the server read 1,005,000: 4,995 ms ahead.
    clock.observe(1_000_000, 1_000_010, 1_005_000)
    expect(clock.now()).toBe(1_004_995)
  })

  it('a reading made at the same local time follows a new offset at once', () => {
    const { clock } = setup()
    clock.observe(1_000_000, 1_000_000, 1_000_100)
    expect(clock.now()).toBe(1_000_100)
    // 15 more measurements (16 in all after the first): the fastest round trip's offset is adopted.
    for (let i = 0; i < 15; i++) clock.observe(1_000_000, 1_000_020, 1_000_500)
    expect(clock.now()).toBe(1_000_100)
    clock.observe(1_000_000, 1_000_002, 1_000_301)
    expect(clock.now()).toBe(1_000_300)
  })

  it('never runs backwards: a smaller offset holds the clock until local time catches up', () => {
    const { clock, move } = setup()
    clock.observe(1_000_000, 1_000_000, 1_000_100)
    expect(clock.now()).toBe(1_000_100)
    for (let i = 0; i < 16; i++) clock.observe(1_000_000, 1_000_000, 1_000_000)
    expect(clock.now()).toBe(1_000_100)
    move(1_000_050)
    expect(clock.now()).toBe(1_000_100)
    move(1_000_101)
    expect(clock.now()).toBe(1_000_101)
    move(1_000_050) // a local clock stepped back
    expect(clock.now()).toBe(1_000_101)
  })
})
