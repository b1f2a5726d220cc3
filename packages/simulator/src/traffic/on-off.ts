import type { Duration } from '@floodgate/core'
import * as z from 'zod'
import { formatMs } from '../format.js'
import { duration, parseOptions } from '../validate.js'
import { ArrivalsBuilder } from './builder.js'
import {
  endOf,
  type RateOptions,
  type RequestOptions,
  rateShape,
  requestShape,
  type SpanOptions,
  seedShape,
  spanShape,
} from './options.js'
import { exponentialGap, seededRandom } from './random.js'
import { wholeMs } from './steady.js'
import type { Traffic } from './types.js'

/** Options of {@link onOff}. */
export interface OnOffOptions extends RateOptions, SpanOptions, RequestOptions {
  /**
   * How long each active period lasts.
   * @example '10s'
   */
  on: Duration
  /**
   * How long each silence between them lasts.
   * @example '50s'
   */
  off: Duration
  /**
   * With a seed, arrivals within an active period are Poisson at `rate`; without, evenly spaced.
   * @example 3
   */
  seed?: number
}

const schema = z.strictObject({
  ...rateShape,
  ...spanShape,
  ...requestShape,
  on: duration(),
  off: duration(),
  seed: seedShape.seed.optional(),
})

/**
 * On/off traffic: `rate` per `per` for `on`, then nothing for `off`, over and over; the shape of a batch
 * job or a client that retries in waves.
 *
 * @example onOff({ rate: 50, per: '1s', on: '2s', off: '8s' })
 */
export function onOff(options: OnOffOptions): Traffic {
  const o = parseOptions(schema, options, 'onOff')
  const gap = o.per / o.rate
  const cycle = o.on + o.off
  return {
    label: `on/off ${o.rate} per ${formatMs(o.per)}, ${formatMs(o.on)} on, ${formatMs(o.off)} off`,
    arrivals(durationMs) {
      const end = endOf(o, durationMs)
      const random = o.seed === undefined ? undefined : seededRandom(o.seed)
      const out = new ArrivalsBuilder(Math.ceil(((end - o.start) * o.on) / cycle / gap) + 16)
      const keyIndex = out.key(o.key)
      for (let from = o.start; from < end; from += cycle) {
        const until = Math.min(from + o.on, end)
        if (random) {
          for (let t = from + exponentialGap(random, gap); t < until; t += exponentialGap(random, gap)) {
            out.push(Math.floor(t), keyIndex, o.cost)
          }
        } else {
          for (let i = 0; ; i++) {
            const t = wholeMs(from + i * gap)
            if (t >= until) break
            out.push(t, keyIndex, o.cost)
          }
        }
      }
      return out.build()
    },
  }
}
