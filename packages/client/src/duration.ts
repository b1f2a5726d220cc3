/** A number of milliseconds, or a string such as `'250ms'`, `'2s'`, `'1.5m'`, `'1h'`. */
export type Duration = number | `${number}${DurationUnit}` | `${number} ${DurationUnit}`
export type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd'

const UNIT_MS: Readonly<Record<DurationUnit, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
}
const PATTERN = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h|d)$/

/** A duration in ms (finite, >= 0), or `undefined` when `value` is not one. */
export function durationMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined
  if (typeof value !== 'string') return undefined
  const match = PATTERN.exec(value.trim())
  if (match === null) return undefined
  const ms = Number(match[1]) * UNIT_MS[match[2] as DurationUnit]
  return Number.isFinite(ms) ? ms : undefined
}
