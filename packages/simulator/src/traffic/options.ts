import type { Duration } from '@floodgate/core'
import * as z from 'zod'
import { cost, duration, instant, key, positive, positiveInt } from '../validate.js'
import type { ArrivalsBuilder } from './builder.js'
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
   * What each request costs: a finite number >= 0, rounded up to 1/1024 as core counts it (0 is free).
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
  cost: cost().default(1),
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

/** Traffic from many clients at once. */
export interface KeysOptions {
  /**
   * How many clients, each sending at the pattern's rate: `key-0`, `key-1`, ... (`client-0`, ... by
   * default). With 1, the requests come from `key` itself.
   * @default 1
   * @example 1000
   */
  keys?: number
}

export const keysShape = { keys: positiveInt().default(1) }

/** Register the clients of a pattern with `keys` clients; returns their key indices. */
export function registerKeys(out: ArrivalsBuilder, key: string, keys: number): number[] {
  if (keys === 1) return [out.key(key)]
  return Array.from({ length: keys }, (_, k) => out.key(`${key}-${k}`))
}

export { positiveInt }

/** The span's end within a simulation of `durationMs`. */
export const endOf = (span: { end?: number | undefined }, durationMs: number): number =>
  span.end === undefined ? durationMs : Math.min(span.end, durationMs)
