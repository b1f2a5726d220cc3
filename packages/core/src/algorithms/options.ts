import * as z from 'zod'
import type { Duration } from '../duration.js'
import { duration, parseOptions, positive, positiveInt, rateDuration } from '../validate.js'

export const windowSchema = z.strictObject({
  limit: positiveInt('a whole number >= 1'),
  window: rateDuration(),
})

/** Options of the window algorithms. */
export interface WindowOptions {
  /**
   * How many requests (or units of cost) a key may make per window.
   * @example 100
   */
  limit: number
  /**
   * The window's length: ms, or a string like `'10s'`, `'1m'`, `'1h'`, `'1d'`.
   * @example '1m'
   */
  window: Duration
}

export function parseWindowOptions(
  options: WindowOptions,
  where: string,
): { limit: number; windowMs: number } {
  const parsed = parseOptions(windowSchema, options, where)
  return { limit: parsed.limit, windowMs: parsed.window }
}

export const bucketRate = () => positive('a finite number > 0 (units per interval)')

export { duration, parseOptions, positive, positiveInt, rateDuration }
