import type { Duration } from '@floodgate/core'
import * as z from 'zod'
import { formatMs } from '../format.js'
import { instant, parseOptions } from '../validate.js'
import { ArrivalsBuilder } from './builder.js'
import { positiveInt, type RequestOptions, requestShape } from './options.js'
import type { Traffic } from './types.js'

/** Options of {@link burst}. */
export interface BurstOptions extends RequestOptions {
  /**
   * When the burst arrives: ms or a duration from 0.
   * @example '1s'
   */
  at: Duration
  /**
   * How many requests arrive at that instant.
   * @example 11
   */
  count: number
}

const schema = z.strictObject({ at: instant(), count: positiveInt(), ...requestShape })

/**
 * `count` requests at one instant: the same client, the same millisecond.
 *
 * @example burst({ at: '1s', count: 11 })                 // the token bucket example's "burst of 10, then the 11th"
 */
export function burst(options: BurstOptions): Traffic {
  const o = parseOptions(schema, options, 'burst')
  return {
    label: `burst of ${o.count} at ${formatMs(o.at)}`,
    arrivals(durationMs) {
      const out = new ArrivalsBuilder(o.count)
      const keyIndex = out.key(o.key)
      if (o.at < durationMs) for (let i = 0; i < o.count; i++) out.push(o.at, keyIndex, o.cost)
      return out.build()
    },
  }
}
