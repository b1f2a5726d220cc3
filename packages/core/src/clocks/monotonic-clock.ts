/**
 * A monotonic ms clock (`performance.now()`): what timeouts and durations are measured on, never moved by the
 * wall clock being set. The default clock of the degradation middlewares and of the stores' call deadlines.
 */
export const monotonicClock = (): number => performance.now()
