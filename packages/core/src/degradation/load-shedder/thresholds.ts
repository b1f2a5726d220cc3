/**
 * The in-flight bound of each class: class `i` (0 is the highest) may be let in while, with it, no more than
 * `maxInFlight x (1 - the reserves of the classes above it)` requests are in flight. A reserve is a share of
 * capacity that only its class and the classes above it may use: `{ critical: 0.2 }` keeps 20% of
 * `maxInFlight` for critical requests, so the others are shed from 80% on and critical ones only at 100%.
 */
export function inFlightBounds(
  classes: readonly string[],
  maxInFlight: number,
  reserve: Readonly<Record<string, number>>,
): number[] {
  let kept = 0
  return classes.map((name) => {
    const bound = maxInFlight * (1 - kept)
    kept += reserve[name] ?? 0
    return Math.max(1, Math.floor(bound + 1e-9))
  })
}
