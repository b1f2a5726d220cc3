/** A year of seconds: no wait is longer, and a legacy reset larger than this is an epoch time. */
export const YEAR_SECONDS = 365 * 24 * 60 * 60
const YEAR_MS = YEAR_SECONDS * 1000
/** Past this, an epoch time is in ms, not seconds (1e11 s is the year 5138). */
const EPOCH_MS_ABOVE = 1e11

const DECIMAL = /^\d{1,30}(?:\.\d{1,30})?$/

/** A non-negative decimal number (`30`, `1.5`), or `undefined`: never NaN, never negative. */
export function parseDecimal(text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const trimmed = text.trim()
  if (!DECIMAL.test(trimmed)) return undefined
  const n = Number(trimmed)
  return Number.isFinite(n) ? n : undefined
}

/** A count (quota, remaining): a whole number >= 0, capped at the largest safe integer. */
export function toCount(n: number | undefined): number | undefined {
  if (n === undefined || !Number.isFinite(n) || n < 0) return undefined
  return Math.min(Math.floor(n), Number.MAX_SAFE_INTEGER)
}

/** Clamp a wait to `[0, a year]`. */
export const clampMs = (ms: number): number => (ms > 0 ? Math.min(ms, YEAR_MS) : 0)

/** Delta seconds to ms, capped at a year. */
export const deltaMs = (seconds: number): number => clampMs(seconds * 1000)

/**
 * A legacy `X-RateLimit-Reset` to ms from now. It is often an epoch time in seconds (GitHub,
 * express-rate-limit) and sometimes in ms, sometimes delta seconds (@fastify/rate-limit). A value larger than a
 * year of seconds is taken for an epoch time: in ms above 1e11, else in seconds. A time in the past is 0. The
 * drafts' resets are delta seconds, always, and read with {@link deltaMs}: a draft reset of over a year is a
 * year, never "now".
 */
export function legacyResetMs(seconds: number, now: number): number {
  if (seconds <= YEAR_SECONDS) return deltaMs(seconds)
  const epochMs = seconds > EPOCH_MS_ABOVE ? seconds : seconds * 1000
  return clampMs(epochMs - now)
}
