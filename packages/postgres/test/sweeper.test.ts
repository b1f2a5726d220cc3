import { describe, expect, it } from 'vitest'
import { Sweeper } from '../src/sweeper.js'

// The background sweep's schedule, with the sweep itself as a function that resolves when told to.
function harness(every: number, batch: number) {
  const calls: { batch: number; finish: (deleted: number | undefined) => void }[] = []
  const sweeper = new Sweeper(
    every,
    batch,
    (b) => new Promise<number | undefined>((resolve) => calls.push({ batch: b, finish: resolve })),
  )
  return { sweeper, calls }
}

describe('Sweeper', () => {
  it('sweeps after every N decisions, one sweep at a time', async () => {
    const { sweeper, calls } = harness(3, 10)
    sweeper.note(2)
    expect(calls).toHaveLength(0)
    sweeper.note(1)
    expect(calls.map((c) => c.batch)).toEqual([10])
    sweeper.note(5) // due again, but one is running: these count towards the next
    expect(calls).toHaveLength(1)
    calls[0]!.finish(4)
    await sweeper.idle()
    sweeper.note(1)
    expect(calls).toHaveLength(2)
    calls[1]!.finish(4)
    await sweeper.idle()
    sweeper.note(2)
    expect(calls).toHaveLength(2)
    sweeper.note(1)
    expect(calls).toHaveLength(3)
  })

  it('a sweep that deleted a whole batch makes the next one due at once; a failed one waits its turn', async () => {
    const { sweeper, calls } = harness(100, 10)
    sweeper.note(100)
    calls[0]!.finish(10)
    await sweeper.idle()
    sweeper.note(1)
    expect(calls).toHaveLength(2)
    calls[1]!.finish(undefined)
    await sweeper.idle()
    sweeper.note(1)
    expect(calls).toHaveLength(2)
  })
})
