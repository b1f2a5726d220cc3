// A virtual clock with timers for core's tests (core cannot import the test kit, which depends on it):
// timers fire only when the test advances the clock, each at its own time, in order.
import type { Timers } from '../../src/degradation/timers.js'

export function virtualTime(start = 1_000_000) {
  let now = start
  let seq = 0
  const due: { id: number; at: number; fn: () => void }[] = []
  const timers: Timers & { readonly pending: number } = {
    set(fn, ms) {
      due.push({ id: ++seq, at: now + Math.max(0, ms), fn })
      return seq
    },
    clear(handle) {
      const i = due.findIndex((d) => d.id === handle)
      if (i >= 0) due.splice(i, 1)
    },
    get pending() {
      return due.length
    },
  }
  const advance = (ms: number) => {
    const end = now + ms
    for (;;) {
      due.sort((a, b) => a.at - b.at || a.id - b.id)
      const first = due[0]
      if (!first || first.at > end) break
      due.shift()
      now = Math.max(now, first.at)
      first.fn()
    }
    now = end
  }
  return { clock: () => now, timers, advance }
}
