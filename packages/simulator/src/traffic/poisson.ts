import { z } from 'zod'
import { formatMs } from '../format.js'
import { parseOptions } from '../validate.js'
import { ArrivalsBuilder } from './builder.js'
import {
  endOf,
  positiveInt,
  type RateOptions,
  type RequestOptions,
  rateShape,
  requestShape,
  type SpanOptions,
  seedShape,
  spanShape,
} from './options.js'
import { exponentialGap, seededRandom } from './random.js'
import type { Traffic } from './types.js'

/** Options of {@link poisson}. */
export interface PoissonOptions extends RateOptions, SpanOptions, RequestOptions {
  /**
   * The random seed: the same seed gives the same arrivals.
   * @example 42
   */
  seed: number
  /**
   * How many independent clients, each sending at `rate`: `key-0`, `key-1`, ... (`client-0`, ... by
   * default). With 1, the requests come from `key` itself.
   * @default 1
   * @example 1000
   */
  keys?: number
}

const schema = z.strictObject({
  ...rateShape,
  ...spanShape,
  ...requestShape,
  ...seedShape,
  keys: positiveInt().default(1),
})

/**
 * Poisson arrivals: independent requests at an average of `rate` per `per` (per key), exponential gaps
 * between them, times floored to whole ms (two may share a millisecond). Seeded, so reproducible.
 *
 * @example poisson({ rate: 100, per: '1m', seed: 7, keys: 1000 })
 */
export function poisson(options: PoissonOptions): Traffic {
  const o = parseOptions(schema, options, 'poisson')
  // n independent Poisson processes of rate r are one process of rate n x r, each arrival from a random key.
  const meanGap = o.per / (o.rate * o.keys)
  return {
    label: `Poisson ${o.rate} per ${formatMs(o.per)}${o.keys > 1 ? ` x ${o.keys} keys` : ''} (seed ${o.seed})`,
    arrivals(durationMs) {
      const end = endOf(o, durationMs)
      const random = seededRandom(o.seed)
      const out = new ArrivalsBuilder(Math.ceil((end - o.start) / meanGap) + 16)
      const keyIndex: number[] = []
      if (o.keys === 1) keyIndex.push(out.key(o.key))
      else for (let k = 0; k < o.keys; k++) keyIndex.push(out.key(`${o.key}-${k}`))
      for (let t = o.start + exponentialGap(random, meanGap); t < end; t += exponentialGap(random, meanGap)) {
        const k = o.keys === 1 ? 0 : Math.floor(random() * o.keys)
        out.push(Math.floor(t), keyIndex[k], o.cost)
      }
      return out.build()
    },
  }
}
