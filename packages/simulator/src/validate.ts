import { type Algorithm, type Duration, parseOptions, positive, positiveInt, toMs } from '@floodgate/core'
import { z } from 'zod'
import type { Traffic } from './traffic/types.js'

/** The wording core uses for a duration, so that its `parseOptions` reports `ERR_FLOODGATE_INVALID_DURATION`. */
const DURATION_EXPECTED = "a duration like '250ms', '10s', '1m', '1h', '1d' or a number of ms > 0"
const INSTANT_EXPECTED = "a time like '59s' or a number of ms >= 0"

/** A duration (> 0), parsed to ms. */
export const duration = () =>
  z.custom<Duration>((v) => toMs(v) !== undefined, { error: DURATION_EXPECTED }).transform((v) => toMs(v)!)

/** A point in simulated time (>= 0): `0`, a number of ms, or a duration string counted from 0. */
export const instant = () =>
  z
    .custom<Duration | 0>((v) => v === 0 || toMs(v) !== undefined, { error: INSTANT_EXPECTED })
    .transform((v) => (v === 0 ? 0 : toMs(v)!))

/** A key: a non-empty string. */
export const key = () => z.string({ error: 'a non-empty string' }).min(1, { error: 'a non-empty string' })

/** An algorithm from `@floodgate/core` (`tokenBucket(...)`, `gcra(...)`, ...). */
export const algorithm = () =>
  z.custom<Algorithm>(
    (v) =>
      typeof v === 'object' &&
      v !== null &&
      typeof (v as Algorithm).consume === 'function' &&
      typeof (v as Algorithm).kind === 'string' &&
      Number.isSafeInteger((v as Algorithm).stateSize),
    { error: 'an algorithm from @floodgate/core, such as tokenBucket({ capacity: 10, refillRate: 1 })' },
  )

/** A traffic pattern (`steady(...)`, `poisson(...)`, `replay(...)`, ...). */
export const traffic = () =>
  z.custom<Traffic>(
    (v) => typeof v === 'object' && v !== null && typeof (v as Traffic).arrivals === 'function',
    { error: "a traffic pattern, such as steady({ rate: 10, per: '1s' })" },
  )

export { parseOptions, positive, positiveInt }
