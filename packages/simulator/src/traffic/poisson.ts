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
  seedShape,
  spanShape,
} from './options.js'
import { exponentialGap, seededRandom } from './random.js'
import type { Traffic } from './types.js'

/** Options of {@link poisson}. */
export interface PoissonOptions extends RateOptions, SpanOptions, RequestOptions, KeysOptions {
  /**
   * The random seed: the same seed gives the same arrivals.
   * @example 42
   */
  seed: number
}

const schema = z.strictObject({
  ...rateShape,
  ...spanShape,
  ...requestShape,
  ...seedShape,
  ...keysShape,
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
      const keyIndex = registerKeys(out, o.key, o.keys)
      for (let t = o.start + exponentialGap(random, meanGap); t < end; t += exponentialGap(random, meanGap)) {
        const k = o.keys === 1 ? 0 : Math.floor(random() * o.keys)
        out.push(Math.floor(t), keyIndex[k], o.cost)
      }
      return out.build()
    },
  }
}
