import { type Duration, RateLimitConfigError } from '@floodgate/core'
import * as z from 'zod'
import { formatMs } from '../format.js'
import { duration, instant, parseOptions } from '../validate.js'
import { ArrivalsBuilder } from './builder.js'
import { positiveInt, type RequestOptions, requestShape } from './options.js'
import type { Traffic } from './types.js'

/** Options of {@link boundaryBurst}. */
export interface BoundaryBurstOptions extends RequestOptions {
  /**
   * Requests in each of the two bursts: the limit under test.
   * @example 100
   */
  limit: number
  /**
   * The window whose boundary the bursts straddle.
   * @default '1m'
   * @example '1m'
   */
  window?: Duration
  /**
   * The boundary: ms or a duration from 0, a multiple of `window` for aligned windows.
   * @default window (the first boundary after 0)
   * @example '2m'
   */
  boundary?: Duration
  /**
   * How far before and after the boundary the bursts arrive.
   * @default '1s'
   * @example '500ms'
   */
  offset?: Duration
}

const schema = z.strictObject({
  limit: positiveInt(),
  window: duration().default(60_000),
  boundary: instant().optional(),
  offset: duration().default(1_000),
  ...requestShape,
})

/**
 * The boundary burst: `limit` requests just before a window boundary and `limit` more just after (with the
 * defaults, at :59 and at 1:01). A fixed window admits both: twice the limit in two seconds.
 *
 * @example boundaryBurst({ limit: 100, window: '1m' })     // 100 at 59 s, 100 at 61 s
 */
export function boundaryBurst(options: BoundaryBurstOptions): Traffic {
  const o = parseOptions(schema, options, 'boundaryBurst')
  const boundary = o.boundary ?? o.window
  if (o.offset > boundary) {
    const expected = `at most the boundary (${boundary} ms), so that the first burst is not before 0`
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      'boundaryBurst.offset',
      options.offset,
      expected,
    )
  }
  const times = [boundary - o.offset, boundary + o.offset]
  return {
    label: `${o.limit} at ${formatMs(times[0]!)} + ${o.limit} at ${formatMs(times[1]!)}`,
    arrivals(durationMs) {
      const out = new ArrivalsBuilder(2 * o.limit)
      const keyIndex = out.key(o.key)
      for (const t of times) {
        if (t < durationMs) for (let i = 0; i < o.limit; i++) out.push(t, keyIndex, o.cost)
      }
      return out.build()
    },
  }
}
