import * as z from 'zod'
import { type Duration, toMs } from './duration.js'
import { RateLimitConfigError, type RateLimitErrorCode } from './errors.js'
import { warnOnce } from './http/warnings.js'
import type { Algorithm, Store } from './types.js'
import { unknownOptionHint } from './unknown-option.js'

/** What a duration option accepts, as error messages say it. */
export const DURATION_EXPECTED = "a duration like '250ms', '10s', '1m', '1h', '1d' or a number of ms > 0"

/** A finite number > 0. */
export const positive = (expected = 'a finite number > 0') =>
  z.number({ error: expected }).refine((n) => Number.isFinite(n) && n > 0, { error: expected })

/** A whole number >= 1. */
export const positiveInt = (expected = 'a whole number >= 1') =>
  z.number({ error: expected }).refine((n) => Number.isSafeInteger(n) && n >= 1, { error: expected })

/** A duration, parsed to ms. */
export const duration = () =>
  z
    .custom<number | string>((v) => toMs(v) !== undefined, { error: DURATION_EXPECTED })
    .transform((v) => toMs(v) as number)

/**
 * A duration that is the period of a rate (a window, a refill interval): as {@link duration}, and a bare number
 * under one second warns once per process that numbers are milliseconds (`window: 60` meant as a minute is
 * 60 ms). A string such as `'500ms'` says the milliseconds are meant, and is quiet.
 */
export const rateDuration = () =>
  z
    .custom<number | string>((v) => toMs(v) !== undefined, { error: DURATION_EXPECTED })
    .transform((v) => {
      if (typeof v === 'number' && v < 1000) {
        warnOnce(
          'ERR_FLOODGATE_WINDOW_IN_MS',
          `A window or interval of ${v} (a number) is ${v} ms: numbers are milliseconds. ` +
            `For ${v} seconds write '${v}s' (or ${v * 1000}); for ${v} ms write '${v}ms'.`,
        )
      }
      return toMs(v) as number
    })

/**
 * A duration checked but left as given, for an option passed on to an algorithm factory that parses it (the
 * short form's `window`), so that the factory sees what the user wrote.
 */
export const durationInput = () =>
  z.custom<Duration>((v) => toMs(v) !== undefined, { error: DURATION_EXPECTED })

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined
    value = (value as Record<PropertyKey, unknown>)[part]
  }
  return value
}

/**
 * Validate `input` with a zod schema, or throw a {@link RateLimitConfigError} for the first problem, naming
 * the option (`where.option`), the value given and what is allowed.
 */
export function parseOptions<S extends z.ZodType>(schema: S, input: unknown, where: string): z.output<S> {
  if (input !== undefined && (input === null || typeof input !== 'object' || Array.isArray(input))) {
    throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', where, input, 'an object of options')
  }
  const result = schema.safeParse(input ?? {})
  if (result.success) return result.data
  // An unknown name first: it is often the cause of the other problems (`max` given, so `limit` is missing).
  const issue = result.error.issues.find((i) => i.code === 'unrecognized_keys') ?? result.error.issues[0]!
  const path = issue.path.map(String)
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!
    const option = [where, ...path, key].join('.')
    const known = schemaKeys(schema, issue.path)
    const hint = unknownOptionHint(key, known)
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_UNKNOWN_OPTION',
      option,
      valueAt(input, [...issue.path, key]),
      hint === undefined && known.length > 0
        ? `one of the known options (${known.join(', ')})`
        : 'a known option',
      hint,
    )
  }
  const code: RateLimitErrorCode =
    issue.message === DURATION_EXPECTED ? 'ERR_FLOODGATE_INVALID_DURATION' : 'ERR_FLOODGATE_INVALID_OPTION'
  throw new RateLimitConfigError(code, [where, ...path].join('.'), valueAt(input, issue.path), issue.message)
}

function schemaKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema
  for (const part of path) {
    const shape = (current as { shape?: Record<string, unknown> }).shape
    current = shape?.[String(part)]
  }
  const shape = (current as { shape?: Record<string, unknown> } | undefined)?.shape
  return shape ? Object.keys(shape) : []
}

const isAlgorithm = (v: unknown): v is Algorithm =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Algorithm).consume === 'function' &&
  typeof (v as Algorithm).stateSize === 'number'
const isStore = (v: unknown): v is Store =>
  typeof v === 'object' &&
  v !== null &&
  ['consume', 'peek', 'refund', 'reset'].every((m) => typeof (v as any)[m] === 'function')

/** An algorithm made by one of the factories (`slidingWindowCounter(...)`, ...). */
export const algorithmSchema = z.custom<Algorithm>(isAlgorithm, {
  error: 'an algorithm such as slidingWindowCounter({ limit: 100, window: "1m" })',
})
/** A store: the methods of `Store`. */
export const storeSchema = z.custom<Store>(isStore, {
  error: 'a store (consume, peek, refund, reset, close)',
})

/** A function; `expected` says what it should be (`'a function (req) => boolean'`). */
export const fn = (expected: string) =>
  z.custom<(...args: any[]) => any>((v) => typeof v === 'function', { error: expected })
