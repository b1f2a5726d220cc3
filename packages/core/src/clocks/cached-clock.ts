import type { Clock } from '../types.js'

/** Decisions served from one reading, at most, before the clock is read again. */
const MAX_USES = 256
/** How often the reading is refreshed while decisions are being made. */
const REFRESH_MS = 1

/**
 * A clock that reads `Date.now()` at most once per millisecond under load, as nginx caches its time once per
 * event-loop cycle. On many virtual machines a clock read costs 50 ns, more than a whole decision.
 *
 * The reading is refreshed every millisecond by an unref'd timer that runs only while decisions are being made
 * (it stops itself after a quiet millisecond and never keeps the process alive), and after at most 256
 * decisions from one reading, so a long synchronous burst still sees time move. A decision is thus never more
 * than about a millisecond behind the wall clock: the same resolution `Date.now()` itself has.
 */
export function cachedClock(source: Clock = Date.now): Clock & { stop(): void } {
  let now = 0
  let uses = MAX_USES // start stale
  let busy = false
  let timer: ReturnType<typeof setInterval> | undefined

  const tick = () => {
    if (!busy) {
      clearInterval(timer)
      timer = undefined
      uses = MAX_USES
      return
    }
    busy = false
    now = source()
    uses = 0
  }

  const clock = () => {
    busy = true
    if (uses++ < MAX_USES) return now
    now = source()
    uses = 1
    if (timer === undefined) {
      timer = setInterval(tick, REFRESH_MS)
      timer.unref()
    }
    return now
  }
  clock.stop = () => {
    clearInterval(timer)
    timer = undefined
    uses = MAX_USES
  }
  return clock
}
