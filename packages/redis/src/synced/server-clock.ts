import type { Clock } from '@floodgate/core/internal'

/** How many syncs' measurements are gathered before the clock adopts the one with the fastest round trip. */
const SAMPLES = 16

/**
 * A local clock aligned to the Redis server's: every sync that reads the server clock tells how far the two
 * are apart, to within half its round trip. The first measurement is adopted at once; after that, the one with
 * the fastest round trip of every 16. Never runs backwards (a window must not start twice).
 */
export interface ServerClock {
  /** The Redis server's time, as this process estimates it, in ms. */
  now(): number
  /**
   * How far (ms) `now()` may be from the server's clock: half the round trip of the measurement it uses (the
   * server read its clock somewhere within that trip), plus 1 ms for the whole-ms rounding and the local clock's
   * tick. Infinity before the first measurement.
   */
  readonly uncertainty: number
  /** A call sent at local time `sentAt` and answered at `receivedAt` read `serverNow` on the server. */
  observe(sentAt: number, receivedAt: number, serverNow: number): void
}

export function serverClock(local: Clock): ServerClock {
  let offset = 0
  let measured = false
  let bestRtt = Number.POSITIVE_INFINITY
  let bestOffset = 0
  let samples = 0
  // The last reading and the local time it was made from. Kept in the closure, a reading is handed out as it
  // is: a number read from an object's field is copied into a new heap number on each read, and most readings
  // repeat the one before (the local clock moves once a millisecond).
  let readFrom = Number.NaN
  let last = Number.NEGATIVE_INFINITY
  const clock: { -readonly [K in keyof ServerClock]: ServerClock[K] } = {
    uncertainty: Number.POSITIVE_INFINITY,
    now() {
      const t = local()
      if (t === readFrom) return last
      readFrom = t
      if (t + offset > last) last = t + offset
      return last
    },
    observe(sentAt, receivedAt, serverNow) {
      const rtt = receivedAt - sentAt
      // Whole ms: decisions then carry whole-ms waits, as with a local clock.
      const measuredOffset = Math.round(serverNow - (sentAt + receivedAt) / 2)
      readFrom = Number.NaN
      if (!measured) {
        measured = true
        offset = measuredOffset
        clock.uncertainty = rtt / 2 + 1
        return
      }
      if (rtt < bestRtt) {
        bestRtt = rtt
        bestOffset = measuredOffset
      }
      if (++samples < SAMPLES) return
      offset = bestOffset
      clock.uncertainty = bestRtt / 2 + 1
      samples = 0
      bestRtt = Number.POSITIVE_INFINITY
    },
  }
  return clock
}
