/** The part of a virtual clock the timers move (kept structural: this file imports nothing). */
interface MovableClock {
  now(): number
  set(ms: number): number
}

/** Timers that fire only when a test moves its virtual clock: `set`, `clear`, then `advance`. */
export interface VirtualTimers {
  /**
   * Call `fn` once the clock has moved `ms` forward (at once on the next `advance` when `ms` <= 0); returns
   * a handle for `clear`.
   * @example const handle = timers.set(() => expired.push(id), 5000)
   */
  set(fn: () => void, ms: number): unknown
  /**
   * Forget a timer that has not fired.
   * @example timers.clear(handle)
   */
  clear(handle: unknown): void
  /**
   * Move the clock forward by `ms`, firing each timer that falls due on the way at its own time, in order.
   * A negative `ms` moves the clock back and every pending timer with it: a timer due in 50 ms is still due
   * in 50 ms.
   * @example timers.advance(10_000)
   */
  advance(ms: number): void
  /** How many timers are waiting to fire. */
  readonly pending: number
}

/**
 * Virtual timers over a virtual clock (`virtualClock()`): pass them where a component takes injected timers (a queue's
 * `maxWait`) and drive time with `advance`, so a test never sleeps.
 *
 * @example const clock = virtualClock(); const timers = virtualTimers(clock); timers.advance(10_000)
 */
export function virtualTimers(clock: MovableClock): VirtualTimers {
  let seq = 0
  const due = new Map<number, { at: number; fn: () => void }>()
  const nextDue = () => {
    let best: [number, { at: number; fn: () => void }] | undefined
    for (const entry of due) if (!best || entry[1].at < best[1].at) best = entry
    return best
  }
  return {
    set(fn, ms) {
      const id = ++seq
      due.set(id, { at: clock.now() + Math.max(0, ms), fn })
      return id
    },
    clear(handle) {
      due.delete(handle as number)
    },
    advance(ms) {
      const end = clock.now() + ms
      if (ms < 0) {
        for (const timer of due.values()) timer.at += ms
        clock.set(end)
        return
      }
      for (let entry = nextDue(); entry && entry[1].at <= end; entry = nextDue()) {
        due.delete(entry[0])
        if (entry[1].at > clock.now()) clock.set(entry[1].at)
        entry[1].fn()
      }
      clock.set(end)
    },
    get pending() {
      return due.size
    },
  }
}
