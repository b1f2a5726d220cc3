import * as z from 'zod'
import { metricsSinkSchema } from '../../metrics/schema.js'
import { duration, fn, positiveInt } from '../../validate.js'
import { formatSchema, nameSchema, timersSchema } from '../schema-parts.js'

/** The defaults of `priorityQueue`, written once. */
export const PRIORITY_QUEUE_DEFAULTS = {
  maxWait: '10s',
  promoteAfter: false,
  format: 'json',
} as const

const CAPACITY_EXPECTED = 'a whole number >= 0'
const queueSchema = z.strictObject({
  capacity: z
    .number({ error: CAPACITY_EXPECTED })
    .refine((n) => Number.isSafeInteger(n) && n >= 0, { error: CAPACITY_EXPECTED }),
  maxWait: duration().optional(),
})

const QUEUES_EXPECTED = 'an object of one or more queues by name, like { standard: { capacity: 100 } }'

export const priorityQueueSchema = z
  .strictObject({
    concurrency: positiveInt(),
    queues: z
      .record(nameSchema, queueSchema, { error: QUEUES_EXPECTED })
      .refine((q) => Object.keys(q).length > 0, { error: QUEUES_EXPECTED }),
    priority: fn('a function (req, info) => the name of a queue').optional(),
    maxWait: duration().prefault(PRIORITY_QUEUE_DEFAULTS.maxWait),
    promoteAfter: z
      .union([duration(), z.literal(false)], { error: "a duration like '2s', or false" })
      .default(PRIORITY_QUEUE_DEFAULTS.promoteAfter),
    format: formatSchema.default(PRIORITY_QUEUE_DEFAULTS.format),
    onError: fn('a function (error, req, info) => void').optional(),
    clock: fn('a function returning ms').optional(),
    timers: timersSchema.optional(),
    metrics: metricsSinkSchema.optional(),
  })
  .superRefine((o, ctx) => {
    if (o.priority === undefined && Object.keys(o.queues ?? {}).length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['priority'],
        message: 'a function (req, info) => the name of a queue: with several queues, it picks one',
      })
    }
  })
