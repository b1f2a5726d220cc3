import { RateLimitConfigError } from './errors.js'

/** A number of milliseconds, or a string such as `'250ms'`, `'10s'`, `'1.5m'`, `'1h'`, `'1d'`. */
export type Duration = number | `${number}${DurationUnit}` | `${number} ${DurationUnit}`
export type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd'

const UNIT_MS: Record<DurationUnit, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }
const DURATION = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h|d)$/

/** Parse a duration to ms, or return `undefined` when it is not one (or is not positive and finite). */
export function toMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined
  if (typeof value !== 'string') return undefined
  const match = DURATION.exec(value.trim())
  if (!match) return undefined
  const ms = Number(match[1]) * UNIT_MS[match[2] as DurationUnit]
  return Number.isFinite(ms) && ms > 0 ? ms : undefined
}

/** Parse a duration to ms or throw a {@link RateLimitConfigError} naming the option. */
export function parseDuration(value: Duration, option = 'duration'): number {
  const ms = toMs(value)
  if (ms === undefined) {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_DURATION',
      option,
      value,
      "a duration like '250ms', '10s', '1m', '1h', '1d' or a number of ms > 0",
    )
  }
  return ms
}
