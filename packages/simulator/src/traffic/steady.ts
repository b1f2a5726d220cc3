import * as z from 'zod'
import { formatMs } from '../format.js'
import { parseOptions } from '../validate.js'
import { ArrivalsBuilder } from './builder.js'
import {
  endOf,
  type KeysOptions,
  keysShape,
  type RateOptions,
  type RequestOptions,
  rateShape,
  registerKeys,
  requestShape,
  type SpanOptions,
  spanShape,
} from './options.js'
import type { Traffic } from './types.js'

/** Options of {@link steady}. */
export interface SteadyOptions extends RateOptions, SpanOptions, RequestOptions, KeysOptions {}

const schema = z.strictObject({ ...rateShape, ...spanShape, ...requestShape, ...keysShape })

/** Arrival times are whole ms, as `Date.now()` gives them; this forgives float noise in `i * gap`. */
export const wholeMs = (t: number): number => Math.floor(t + 1e-6)

/**
 * Requests evenly spaced at `rate` per `per`, from `start` to `end` (or the end of the simulation). Times
 * are whole ms: 3 per second arrive at 0, 333 and 666 ms. With `keys`, every client sends at `rate`, their
 * phases spread evenly over one gap (client k starts k / keys of a gap later).
 *
 * @example steady({ rate: 10, per: '1s' })            // one request every 100 ms
 * @example steady({ rate: 100, per: '1m', keys: 1000 }) // 1000 clients, 100 a minute each
 */
export function steady(options: SteadyOptions): Traffic {
  const o = parseOptions(schema, options, 'steady')
  const gap = o.per / o.rate
  return {
    label: `steady ${o.rate} per ${formatMs(o.per)}${o.keys > 1 ? ` x ${o.keys} keys` : ''}`,
    arrivals(durationMs) {
      const end = endOf(o, durationMs)
      const step = gap / o.keys // the clients' requests, interleaved: client j % keys sends the j-th
      const out = new ArrivalsBuilder(Math.ceil((end - o.start) / step) + 1)
      const keyIndex = registerKeys(out, o.key, o.keys)
      for (let j = 0; ; j++) {
        const t = wholeMs(o.start + j * step)
        if (t >= end) break
        out.push(t, keyIndex[j % o.keys], o.cost)
      }
      return out.build()
    },
  }
}
