import type { Duration } from '@floodgate/core'
import {
  algorithmSchema,
  duration,
  isCost,
  parseOptions,
  positive,
  positiveInt,
  toMs,
} from '@floodgate/core/internal'
import * as z from 'zod'
import type { Traffic } from './traffic/types.js'

const INSTANT_EXPECTED = "a time like '59s' or a number of ms >= 0"

/** A point in simulated time (>= 0): `0`, a number of ms, or a duration string counted from 0. */
export const instant = () =>
  z
    .custom<Duration | 0>((v) => v === 0 || toMs(v) !== undefined, { error: INSTANT_EXPECTED })
    .transform((v) => (v === 0 ? 0 : toMs(v)!))

/** What core accepts as a cost: a finite number >= 0 (0 is a free request). */
export const COST_EXPECTED = 'a finite number >= 0 (0: a free request)'
export const cost = () => z.number({ error: COST_EXPECTED }).refine(isCost, { error: COST_EXPECTED })

/** A key: a non-empty string. */
export const key = () => z.string({ error: 'a non-empty string' }).min(1, { error: 'a non-empty string' })

/** A traffic pattern (`steady(...)`, `poisson(...)`, `replay(...)`, ...). */
export const traffic = () =>
  z.custom<Traffic>(
    (v) => typeof v === 'object' && v !== null && typeof (v as Traffic).arrivals === 'function',
    { error: "a traffic pattern, such as steady({ rate: 10, per: '1s' })" },
  )

export { algorithmSchema, duration, isCost, parseOptions, positive, positiveInt }
