import { describe, expect, it } from 'vitest'
import { type PollTimers, SettingsPoller } from '../src/stores/settings-poller.js'
import type { StoreSettings } from '../src/types.js'

/** Timers that fire only when the test says so: `fire()` runs the pending ones. */
function manualTimers(): PollTimers & { pending: Map<number, () => void>; fire(): void } {
  let seq = 0
  const pending = new Map<number, () => void>()
  return {
    pending,
    setTimeout(callback) {
      pending.set(++seq, callback)
      return seq
    },
    clearTimeout(handle) {
      pending.delete(handle as number)
    },
    fire() {
      const due = [...pending.values()]
      pending.clear()
      for (const callback of due) callback()
    },
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('SettingsPoller', () => {
  it('reads a watched document at once, then once per interval; a change reaches the watchers on the next read', async () => {
    let doc: StoreSettings = { version: 1, fields: { a: '1' } }
    const reads: (number | undefined)[] = []
    const timers = manualTimers()
    const poller = new SettingsPoller(
      async (_name, known) => {
        reads.push(known)
        return known === doc.version ? undefined : doc
      },
      1000,
      timers,
    )
    const seen: StoreSettings[] = []
    poller.watch('overrides:', { change: (s) => seen.push(s), error: () => {} })
    await settle()
    expect(seen).toEqual([doc])
    expect(timers.pending.size).toBe(1) // the next read, one interval on
    doc = { version: 2, fields: { a: '2' } }
    expect(seen).toHaveLength(1) // another server wrote it: not seen before the interval
    timers.fire()
    await settle()
    expect(seen.at(-1)).toEqual({ version: 2, fields: { a: '2' } })
    timers.fire()
    await settle()
    expect(seen).toHaveLength(2) // unchanged: a version check, no change
    expect(reads).toEqual([undefined, 1, 2])
    // What this store writes reaches its own watchers at once.
    poller.written('overrides:', { version: 3, fields: {} })
    expect(seen.at(-1)).toEqual({ version: 3, fields: {} })
    poller.close()
    expect(timers.pending.size).toBe(0)
  })

  it('no timer while nothing is watched; the last unwatch stops it; a failed read is reported and retried', async () => {
    const timers = manualTimers()
    let fail = true
    const poller = new SettingsPoller(
      async () => {
        if (fail) throw new Error('down')
        return { version: 1, fields: {} }
      },
      1000,
      timers,
    )
    expect(timers.pending.size).toBe(0)
    const errors: unknown[] = []
    const seen: StoreSettings[] = []
    const stop = poller.watch('x', { change: (s) => seen.push(s), error: (e) => errors.push(e) })
    await settle()
    expect(errors).toHaveLength(1)
    fail = false
    timers.fire()
    await settle()
    expect(seen).toEqual([{ version: 1, fields: {} }])
    stop()
    expect(timers.pending.size).toBe(0)
  })
})
