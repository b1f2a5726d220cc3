import type { Clock } from '@floodgate/core'

/** How many syncs' measurements are gathered before the clock adopts the one with the fastest round trip. */
const SAMPLES = 16

/**
 * A local clock aligned to the Redis server's: every sync that reads the server clock tells how far the two
 * are apart, to within half its round trip. The first measurement is adopted at once; after that, the one with
 * the fastest round trip of every 16. Never runs backwards (a window must not start twice).
 */
export class ServerClock {
  private offset = 0
  private measured = false
  private bestRtt = Number.POSITIVE_INFINITY
  private bestOffset = 0
  private samples = 0
  private last = Number.NEGATIVE_INFINITY

  constructor(private readonly local: Clock) {}

  /** The Redis server's time, as this process estimates it, in ms. */
  now(): number {
    const t = this.local() + this.offset
    if (t > this.last) this.last = t
    return this.last
  }

  /** A call sent at local time `sentAt` and answered at `receivedAt` read `serverNow` on the server. */
  observe(sentAt: number, receivedAt: number, serverNow: number): void {
    const rtt = receivedAt - sentAt
    // Whole ms: decisions then carry whole-ms waits, as with a local clock.
    const offset = Math.round(serverNow - (sentAt + receivedAt) / 2)
    if (!this.measured) {
      this.measured = true
      this.offset = offset
      return
    }
    if (rtt < this.bestRtt) {
      this.bestRtt = rtt
      this.bestOffset = offset
    }
    if (++this.samples < SAMPLES) return
    this.offset = this.bestOffset
    this.samples = 0
    this.bestRtt = Number.POSITIVE_INFINITY
  }
}
