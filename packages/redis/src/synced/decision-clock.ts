import type { ServerClock } from './server-clock.js'

/**
 * Which clock a SyncedStore's decisions run on: the limiter's, when it passes a time (every call to Redis then
 * carries that time), or else the Redis server's, as this process estimates it.
 */
export class DecisionClock {
  /** The limiter's latest time, once it has passed one: what a sync sends the script. */
  private lastNow: number | undefined
  /** Whether the latest decision ran on the server's clock (no time passed by the limiter). */
  private onServer = false

  constructor(readonly server: ServerClock) {}

  /** The decision time: the limiter's `now` when it passes one, else the server's clock as estimated here. */
  time(now: number | undefined): number {
    this.onServer = now === undefined
    if (now === undefined) return this.server.now()
    this.lastNow = now
    return now
  }

  /**
   * How near (ms) either end of its window a decision at `now` is decided by Redis rather than locally: on the
   * server's clock, as far as this process's estimate of it may be off (near an end, the process cannot tell
   * which window Redis is in); none on the limiter's clock, which every call to Redis carries.
   */
  edge(now: number | undefined): number {
    return now === undefined ? this.server.uncertainty : 0
  }

  /** The server's clock as estimated here, while decisions run on it; undefined while the limiter passes times. */
  serverTime(): number | undefined {
    return this.onServer ? this.server.now() : undefined
  }

  /** The time a sync sends the script: the limiter's latest, or undefined (the script reads the server's). */
  scriptNow(): number | undefined {
    return this.lastNow
  }
}
