import type { Clock } from '@floodgate/core'

/** A clock that only moves when told to: tests never sleep. */
export interface VirtualClock {
  /** The current time, in ms: pass it as a limiter's or store's `clock`. */
  readonly now: Clock
  /** Move forward by `ms`. */
  advance(ms: number): number
  /** Jump to an absolute time. */
  set(ms: number): number
}

/** @example const clock = virtualClock(Date.UTC(2026, 0, 1, 12)); clock.advance(1000) */
export function virtualClock(start = 0): VirtualClock {
  let current = start
  return {
    now: () => current,
    advance: (ms) => {
      current += ms
      return current
    },
    set: (ms) => {
      current = ms
      return current
    },
  }
}
