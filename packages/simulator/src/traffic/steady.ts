import { z } from 'zod'
import { formatMs } from '../format.js'
import { parseOptions } from '../validate.js'
import { ArrivalsBuilder } from './builder.js'
import {
  endOf,
  type RateOptions,
  type RequestOptions,
  rateShape,
  requestShape,
  type SpanOptions,
  spanShape,
} from './options.js'
import type { Traffic } from './types.js'

/** Options of {@link steady}. */
export interface SteadyOptions extends RateOptions, SpanOptions, RequestOptions {}

const schema = z.strictObject({ ...rateShape, ...spanShape, ...requestShape })

/** Arrival times are whole ms, as `Date.now()` gives them; this forgives float noise in `i * gap`. */
export const wholeMs = (t: number): number => Math.floor(t + 1e-6)

/**
 * Requests evenly spaced at `rate` per `per`, from `start` to `end` (or the end of the simulation). Times
 * are whole ms: 3 per second arrive at 0, 333 and 666 ms.
 *
 * @example steady({ rate: 10, per: '1s' })            // one request every 100 ms
 */
export function steady(options: SteadyOptions): Traffic {
  const o = parseOptions(schema, options, 'steady')
  const gap = o.per / o.rate
  return {
    label: `steady ${o.rate} per ${formatMs(o.per)}`,
    arrivals(durationMs) {
      const end = endOf(o, durationMs)
      const out = new ArrivalsBuilder(Math.ceil((end - o.start) / gap) + 1)
      const keyIndex = out.key(o.key)
      for (let i = 0; ; i++) {
        const t = wholeMs(o.start + i * gap)
        if (t >= end) break
        out.push(t, keyIndex, o.cost)
      }
      return out.build()
    },
  }
}
