import { RateLimitConfigError } from '@floodgate/core'
import type { Clock } from '@floodgate/core/internal'

/** `ms` when it is a finite number; else a `RateLimitConfigError` naming the call. */
function finite(call: string, ms: number): number {
  if (typeof ms === 'number' && Number.isFinite(ms)) return ms
  throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', call, ms, 'a finite number of ms')
}

/** A clock that only moves when a test moves it: tests never sleep, and never race the wall clock. */
export interface VirtualClock {
  /**
   * The current time, in ms since the epoch. A function of its own (no `this`): pass it as the `clock` option
   * of `createLimiter`, `rateLimit` (Express, Fastify, Koa) or a `MemoryStore`.
   * @example rateLimit({ limit: 5, window: '1m', clock: clock.now })
   */
  readonly now: Clock
  /**
   * Move forward by `ms` (a duration in ms); returns the new time.
   * @example clock.advance(60_000) // a minute later: the window has turned
   */
  advance(ms: number): number
  /**
   * Jump to the absolute time `ms` (backwards too, though a limiter's state assumes time only goes forward);
   * returns it.
   * @example clock.set(Date.UTC(2026, 0, 1, 12))
   */
  set(ms: number): number
}

/**
 * A virtual clock, starting at `start` (ms since the epoch).
 *
 * @example
 * const clock = virtualClock(Date.UTC(2026, 0, 1, 12))
 * const limiter = createLimiter({ algorithm: fixedWindow({ limit: 1, window: '1m' }), clock: clock.now })
 * await limiter.consume('k') // allowed
 * await limiter.consume('k') // refused
 * clock.advance(60_000)
 * await limiter.consume('k') // allowed: a new window
 */
export function virtualClock(start = 0): VirtualClock {
  let current = finite('virtualClock(start)', start)
  return {
    now: () => current,
    advance: (ms) => {
      current += finite('clock.advance(ms)', ms)
      return current
    },
    set: (ms) => {
      current = finite('clock.set(ms)', ms)
      return current
    },
  }
}
