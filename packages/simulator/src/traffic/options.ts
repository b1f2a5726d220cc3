import type { Duration } from '@floodgate/core'
import { z } from 'zod'
import { duration, instant, key, positive, positiveInt } from '../validate.js'
import { DEFAULT_KEY } from './types.js'

/** Options every generator takes. */
export interface RequestOptions {
  /**
   * The key the requests come from (the client, as a limiter would key it).
   * @default 'client'
   * @example 'user:123'
   */
  key?: string
  /**
   * What each request costs.
   * @default 1
   * @example 5
   */
  cost?: number
}

/** When a generator that runs for a while starts and stops. */
export interface SpanOptions {
  /**
   * When the first request may arrive: ms or a duration from 0 (`'10s'`).
   * @default 0
   * @example '1s'
   */
  start?: Duration
  /**
   * When the pattern stops (exclusive): ms or a duration from 0. Without it, it runs to the end of the
   * simulation.
   * @example '30s'
   */
  end?: Duration
}

/** A rate: `rate` requests every `per`. */
export interface RateOptions {
  /**
   * Requests every `per`.
   * @example 10
   */
  rate: number
  /**
   * The period `rate` refers to.
   * @default '1s'
   * @example '1m'
   */
  per?: Duration
}

export const requestShape = {
  key: key().default(DEFAULT_KEY),
  cost: positive().default(1),
}

export const spanShape = {
  start: instant().default(0),
  end: instant().optional(),
}

export const rateShape = {
  rate: positive('a finite number > 0 (requests per period)'),
  per: duration().default(1000),
}

export const seedShape = {
  seed: z.number({ error: 'a whole number' }).refine(Number.isSafeInteger, { error: 'a whole number' }),
}

export { positiveInt }

/** The span's end within a simulation of `durationMs`. */
export const endOf = (span: { end?: number | undefined }, durationMs: number): number =>
  span.end === undefined ? durationMs : Math.min(span.end, durationMs)
