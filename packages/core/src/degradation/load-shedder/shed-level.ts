/**
 * How many classes the event-loop signal sheds, from the lowest up. The level moves one step per `stepMs` at
 * most: up while the smoothed delay is above `maxDelayMs`, down once it is below half of it (the gap keeps it
 * from flapping), so sustained overload sheds the least important class first, then the next, and recovery
 * lets them back in the same order reversed.
 */
export interface ShedLevel {
  /** Update the level from the delay now (at most one step per `stepMs`) and return it. */
  update(delayMs: number, now: number): number
  /** The level as last updated. */
  readonly current: number
  /** How long until the level has fallen enough to let class `index` in (0 when it is let in). */
  retryMs(index: number): number
}

export function shedLevel(options: { classes: number; maxDelayMs: number; stepMs: number }): ShedLevel {
  const { classes, maxDelayMs, stepMs } = options
  let level = 0
  let lastStep = Number.NEGATIVE_INFINITY
  let lastHigh = Number.NEGATIVE_INFINITY // the last time the delay was seen at half the bound or more
  return {
    update(delayMs, now) {
      if (delayMs >= maxDelayMs / 2) lastHigh = now
      if (now - lastStep < stepMs) return level
      if (delayMs > maxDelayMs && level < classes) {
        level++
        lastStep = now
      } else if (delayMs < maxDelayMs / 2 && level > 0) {
        // One step per stepMs since the delay was last seen high: a quiet spell lets several classes back.
        const quiet = now - Math.max(lastStep, lastHigh)
        level = Math.max(0, level - Math.max(1, Math.floor(quiet / stepMs)))
        lastStep = now
      }
      return level
    },
    get current() {
      return level
    },
    retryMs(index) {
      const shedFrom = classes - level // classes at or below this index are shed
      return index < shedFrom ? 0 : (index - shedFrom + 1) * stepMs
    },
  }
}
