import * as z from 'zod'
import { algorithmSchema, duration, durationInput, fn, positive, positiveInt } from '../../validate.js'
import { RATE_LIMIT_DEFAULTS as D } from './defaults.js'

const NAME_EXPECTED = "a name of letters, digits and '_ . : ~ / -', at most 64 characters"
const planName = z.string({ error: NAME_EXPECTED }).regex(/^[\w.:~/-]{1,64}$/, { error: NAME_EXPECTED })

const quotaSchema = z.strictObject({
  limit: positiveInt(),
  period: z.enum(['day', 'week', 'month'], { error: "'day', 'week' or 'month'" }),
  utcOffset: z.string({ error: "an offset from UTC like '+09:00'" }).optional(),
})

const planSchema = z.strictObject({
  rate: positive('a number of requests per second > 0'),
  burst: positiveInt('a whole number of requests >= 1').optional(),
  quota: quotaSchema.optional(),
})

const ROUTE_EXPECTED = '{ algorithm } or { limit, window }, a tier tighter than the innermost one'
const routeTierSchema = z.union(
  [
    z.strictObject({ algorithm: algorithmSchema }),
    z.strictObject({ limit: positiveInt(), window: durationInput() }),
  ],
  { error: ROUTE_EXPECTED },
)
const ROUTE_KEY = /^[A-Z]+ \S+$/

/** The options of usage plans, tiers and per-route tiers, merged into the middleware options' schema. */
export const planOptionsShape = {
  plans: z
    .record(planName, planSchema, { error: 'an object of plans { name: { rate, burst, quota } }' })
    .refine((plans) => Object.keys(plans).length > 0, { error: 'at least one plan' })
    .optional(),
  apiKey: fn('a function of the request returning the API key').optional(),
  planOf: fn('a function (apiKey, req) returning the plan name').optional(),
  anonymousPlan: planName.optional(),
  planCache: z
    .union(
      [
        z.literal(false),
        z.strictObject({
          maxKeys: positiveInt().default(D.planCache.maxKeys),
          ttl: duration().prefault(D.planCache.ttl),
        }),
      ],
      { error: 'false or { maxKeys, ttl }' },
    )
    .prefault(D.planCache),
  planTimeout: duration().prefault(D.planTimeout),
  routes: z
    .record(
      z.string().regex(ROUTE_KEY, { error: "'METHOD /pattern', like 'POST /reports'" }),
      routeTierSchema,
      { error: "an object of route tiers { 'POST /reports': { limit, window } }" },
    )
    .optional(),
}
