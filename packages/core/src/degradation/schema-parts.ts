import * as z from 'zod'
import type { Timers } from './timers.js'

const NAME_EXPECTED = "a name of letters, digits and '_ . : ~ / -', at most 64 characters"
/** A queue's or a class's name. */
export const nameSchema = z
  .string({ error: NAME_EXPECTED })
  .regex(/^[\w.:~/-]{1,64}$/, { error: NAME_EXPECTED })

export const formatSchema = z.enum(['json', 'problem+json'], { error: "'json' or 'problem+json'" })

export const timersSchema = z.custom<Timers>(
  (v) =>
    typeof v === 'object' &&
    v !== null &&
    typeof (v as Timers).set === 'function' &&
    typeof (v as Timers).clear === 'function',
  { error: 'timers: an object with set(fn, ms) and clear(handle)' },
)
