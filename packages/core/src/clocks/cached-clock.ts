import type { Clock } from '../types.js'

/** Decisions served from one reading, at most, before the clock is read again. */
const MAX_USES = 256
/** How often the reading is refreshed while decisions are being made from it. */
const REFRESH_MS = 1
/**
 * Decisions within one millisecond from which the clock is cached rather than read on each decision. Measured
 * here: a `Date.now()` costs 40 to 50 ns, and one run of a 1 ms timer costs a busy process 1 µs or more (an
 * idle one 49 µs, the wake-up included), so below about 30 decisions a millisecond reading the clock each time
 * is the cheaper of the two.
 */
const DENSE = 32

/**
 * A clock that reads `Date.now()` at most once per millisecond under load, as nginx caches its time once per
 * event-loop cycle. On many virtual machines a clock read costs 50 ns, more than a whole decision.
 *
 * While decisions are sparse (fewer than 32 in a millisecond: an HTTP server's usual rate) each decision reads
 * the clock, exactly, and no timer runs. Once they are dense, the reading is cached and refreshed every
 * millisecond by an unref'd timer, and after at most 256 decisions from one reading, so a long synchronous
 * burst still sees time move; a millisecond with fewer than 32 decisions stops the timer, and decisions read
 * the clock again. It never keeps the process alive. A cached reading is at most a millisecond old while the
 * event loop turns; within one long synchronous run, it is at most 256 decisions old.
 */
export function cachedClock(source: Clock = () => Date.now()): Clock & { stop(): void } {
  let now = Number.NaN
  /** Cached (the timer running): the decisions served from `now`. Read each time: the reads in a row that gave `now`. */
  let uses = 0
  /** Cached: the decisions since the timer last ran (the rate that keeps the reading cached). */
  let sinceTick = 0
  /** The refresh timer: running while decisions are served from `now`, undefined while each reads the clock. */
  let timer: ReturnType<typeof setInterval> | undefined

  const readEachTime = () => {
    clearInterval(timer)
    timer = undefined
    uses = 0
  }

  const tick = () => {
    if (sinceTick < DENSE) return readEachTime()
    sinceTick = 0
    now = source()
    uses = 0
  }

  const clock = () => {
    if (timer !== undefined) {
      sinceTick++
      if (uses++ < MAX_USES) return now
      now = source()
      uses = 1
      return now
    }
    const read = source()
    if (read !== now) {
      now = read
      uses = 1
    } else if (++uses >= DENSE) {
      sinceTick = uses
      timer = setInterval(tick, REFRESH_MS)
      timer.unref()
    }
    return read
  }
  clock.stop = readEachTime
  return clock
}
