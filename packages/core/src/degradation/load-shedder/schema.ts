import * as z from 'zod'
import { metricsSinkSchema } from '../../metrics/schema.js'
import { duration, fn, positiveInt } from '../../validate.js'
import { formatSchema, nameSchema } from '../schema-parts.js'
import type { OverloadSignal } from './event-loop-delay.js'

/** The defaults of `loadShedder`, written once. */
export const LOAD_SHEDDER_DEFAULTS = {
  classes: ['critical', 'normal', 'sheddable'],
  reserve: {},
  step: '1s',
  format: 'json',
} as const

const SHARE_EXPECTED = 'a share of capacity, a number >= 0 and < 1'
const CLASSES_EXPECTED = 'a non-empty array of distinct class names, most important first'

const overloadSchema = z.custom<OverloadSignal>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as OverloadSignal).delayMs === 'function' &&
    typeof (v as OverloadSignal).close === 'function',
  { error: 'an overload signal: { delayMs(): number, close(): void }' },
)

export const loadShedderSchema = z
  .strictObject({
    priority: fn('a function (req, info) => the name of a class').optional(),
    classes: z
      .array(nameSchema, { error: CLASSES_EXPECTED })
      .min(1, { error: CLASSES_EXPECTED })
      .refine((c) => new Set(c).size === c.length, { error: CLASSES_EXPECTED })
      .default([...LOAD_SHEDDER_DEFAULTS.classes]),
    maxInFlight: positiveInt().optional(),
    maxEventLoopDelay: duration().optional(),
    reserve: z
      .record(
        nameSchema,
        z.number({ error: SHARE_EXPECTED }).refine((n) => n >= 0 && n < 1, { error: SHARE_EXPECTED }),
      )
      .default({}),
    step: duration().prefault(LOAD_SHEDDER_DEFAULTS.step),
    format: formatSchema.default(LOAD_SHEDDER_DEFAULTS.format),
    onError: fn('a function (error, req, info) => void').optional(),
    overload: overloadSchema.optional(),
    clock: fn('a function returning ms').optional(),
    metrics: metricsSinkSchema.optional(),
  })
  .superRefine((o, ctx) => {
    const issue = (path: string[], message: string) => ctx.addIssue({ code: 'custom', path, message })
    if (o.maxInFlight === undefined && o.maxEventLoopDelay === undefined) {
      issue(['maxInFlight'], 'a whole number >= 1 (give maxInFlight, maxEventLoopDelay, or both)')
      return
    }
    const names = Object.keys(o.reserve)
    for (const name of names) {
      if (!o.classes.includes(name))
        issue(['reserve', name], `a share for one of the classes (${o.classes.join(', ')})`)
      else if (name === o.classes[o.classes.length - 1])
        issue(
          ['reserve', name],
          'a share for a class with a class below it (the last class has none to keep it from)',
        )
    }
    const total = names.reduce((sum, n) => sum + (o.reserve[n] ?? 0), 0)
    if (total >= 1)
      issue(['reserve'], 'shares adding up to less than 1, so the last class keeps some capacity')
    if (names.length > 0 && o.maxInFlight === undefined)
      issue(['reserve'], 'used with maxInFlight (a reserve is a share of it)')
  })
