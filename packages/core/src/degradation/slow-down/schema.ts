import * as z from 'zod'
import { duration, fn, rateDuration, storeSchema } from '../../validate.js'
import { timersSchema } from '../schema-parts.js'

/** The defaults of `slowDown`, written once. */
export const SLOW_DOWN_DEFAULTS = {
  after: 1,
  delay: 1000,
  maxDelay: '30s',
  window: '1m',
  key: 'ip',
  prefix: '',
  ipv6Subnet: 64,
  headers: false,
  delayHeader: true,
  storeTimeout: '500ms',
} as const

const KEY_EXPECTED =
  "'ip', 'endpoint', 'global', a function of the request returning a key, or an array of these"
const keyPart = z.union([z.enum(['ip', 'endpoint', 'global']), fn(KEY_EXPECTED)], { error: KEY_EXPECTED })
const MODES = ['draft-6', 'draft-7', 'draft-8', 'legacy'] as const
const HEADERS_EXPECTED = `one of ${MODES.map((m) => `'${m}'`).join(', ')}, an array of one draft and 'legacy', true or false`
const PREFIX_EXPECTED = 'a string without |, { or }'
const AFTER_EXPECTED = 'a whole number >= 0'
const IPV6_EXPECTED = 'a prefix length from 1 to 128, or false'

export const slowDownSchema = z.strictObject({
  after: z
    .number({ error: AFTER_EXPECTED })
    .refine((n) => Number.isSafeInteger(n) && n >= 0, { error: AFTER_EXPECTED })
    .default(SLOW_DOWN_DEFAULTS.after),
  delay: z
    .union([duration(), fn('')], {
      error: "a duration like '500ms' or '1s' (a number is ms, > 0), or a function (count, req, info) => ms",
    })
    .default(SLOW_DOWN_DEFAULTS.delay),
  maxDelay: z
    .union([z.custom<number>((v) => v === Number.POSITIVE_INFINITY), duration()], {
      error: "a duration like '10s' or a number of ms > 0, or Infinity",
    })
    .prefault(SLOW_DOWN_DEFAULTS.maxDelay),
  window: rateDuration().prefault(SLOW_DOWN_DEFAULTS.window),
  key: z
    .union([keyPart, z.array(keyPart).min(1, { error: KEY_EXPECTED })], { error: KEY_EXPECTED })
    .default(SLOW_DOWN_DEFAULTS.key),
  store: storeSchema.optional(),
  prefix: z
    .string({ error: PREFIX_EXPECTED })
    .regex(/^[^|{}]*$/, { error: PREFIX_EXPECTED })
    .default(SLOW_DOWN_DEFAULTS.prefix),
  ipv6Subnet: z
    .union(
      [
        z.literal(false),
        z.number().refine((n) => Number.isInteger(n) && n >= 1 && n <= 128, { error: IPV6_EXPECTED }),
      ],
      { error: IPV6_EXPECTED },
    )
    .default(SLOW_DOWN_DEFAULTS.ipv6Subnet),
  headers: z
    .union(
      [
        z.boolean(),
        z.enum(MODES),
        z
          .array(z.enum(MODES))
          .refine((modes) => modes.filter((m) => m !== 'legacy').length <= 1, { error: HEADERS_EXPECTED }),
      ],
      { error: HEADERS_EXPECTED },
    )
    .default(SLOW_DOWN_DEFAULTS.headers),
  delayHeader: z.boolean({ error: 'true or false' }).default(SLOW_DOWN_DEFAULTS.delayHeader),
  storeTimeout: duration().prefault(SLOW_DOWN_DEFAULTS.storeTimeout),
  onError: fn('a function (error, req, info) => void').optional(),
  clock: fn('a function returning ms').optional(),
  timers: timersSchema.optional(),
})
