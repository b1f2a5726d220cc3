/**
 * How long requests hold their place (from admission to the end of the response), as an exponentially
 * weighted moving average: what the middlewares' `Retry-After` estimates are made from. 0 until one request
 * has finished.
 */
export interface ServiceTime {
  /** Record one request that held its place `ms`. */
  record(ms: number): void
  /** The average, in ms. */
  readonly meanMs: number
}

/** Each new duration counts for `weight` of the average (0.2: about the last 10 requests). */
export function serviceTime(weight = 0.2): ServiceTime {
  let mean = 0
  let seen = false
  return {
    record(ms) {
      if (!(ms >= 0) || !Number.isFinite(ms)) return
      mean = seen ? mean + weight * (ms - mean) : ms
      seen = true
    },
    get meanMs() {
      return mean
    },
  }
}
