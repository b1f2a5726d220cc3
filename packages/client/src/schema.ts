import { durationMs } from './duration.js'
import { ClientConfigError } from './errors.js'
import type { HeaderSource } from './headers/source.js'

const INVALID: unique symbol = Symbol('invalid')
type Invalid = typeof INVALID

/** One option: its default (written here, once; `INVALID` when it must be given), what it accepts, and how it is read. */
export interface Field<T> {
  readonly fallback: () => T | Invalid
  readonly expected: string
  readonly read: (value: unknown) => T | Invalid
}

/** The options a schema describes, once read: every one has a value. */
export type Parsed<S> = { readonly [K in keyof S]: S[K] extends Field<infer T> ? T : never }

const field = <T>(
  fallback: () => T | Invalid,
  expected: string,
  read: (value: unknown) => T | Invalid,
): Field<T> => ({
  fallback,
  expected,
  read,
})

/** A whole number `>= min`. */
export const wholeNumber = (fallback: number, min: number): Field<number> =>
  field(
    () => fallback,
    `a whole number >= ${min}`,
    (v) => (typeof v === 'number' && Number.isSafeInteger(v) && v >= min ? v : INVALID),
  )

/** A finite number `> 0`. */
export const positiveNumber = (fallback: number): Field<number> =>
  field(
    () => fallback,
    'a finite number > 0',
    (v) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : INVALID),
  )

/** A duration, read as ms. */
export const duration = (fallback: number): Field<number> =>
  field(
    () => fallback,
    "a duration like '500ms', '2s', '1m' or a number of ms >= 0",
    (v) => durationMs(v) ?? INVALID,
  )

export const boolean = (fallback: boolean): Field<boolean> =>
  field(
    () => fallback,
    'true or false',
    (v) => (typeof v === 'boolean' ? v : INVALID),
  )

/** One of a few strings. */
export const oneOf = <T extends string>(fallback: T, values: readonly T[]): Field<T> =>
  field(
    () => fallback,
    `one of ${values.map((v) => `'${v}'`).join(', ')}`,
    (v) => (values.includes(v as T) ? (v as T) : INVALID),
  )

/** A function; `fallback` when none is given. */
export const fn = <T extends Function>(fallback: () => T, expected = 'a function'): Field<T> =>
  field(fallback, expected, (v) => (typeof v === 'function' ? (v as T) : INVALID))

/** An optional function. */
export const optionalFn = <T extends Function>(expected = 'a function'): Field<T | undefined> =>
  field(
    () => undefined,
    expected,
    (v) => (typeof v === 'function' ? (v as T) : INVALID),
  )

/** A non-empty list of HTTP status codes. */
export const statusList = (fallback: readonly number[]): Field<readonly number[]> =>
  field(
    () => fallback,
    'an array of HTTP status codes (whole numbers from 100 to 599)',
    (v) =>
      Array.isArray(v) && v.every((s) => Number.isSafeInteger(s) && s >= 100 && s <= 599)
        ? Object.freeze([...v])
        : INVALID,
  )

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** A list of HTTP methods, upper-cased. */
export const methodList = (fallback: readonly string[]): Field<readonly string[]> =>
  field(
    () => fallback,
    "an array of HTTP methods such as 'GET'",
    (v) =>
      Array.isArray(v) && v.every((m) => typeof m === 'string' && TOKEN.test(m))
        ? Object.freeze(v.map((m: string) => m.toUpperCase()))
        : INVALID,
  )

/** Anything `accept` says yes to, that must be given (an argument of a public function). */
export const required = <T>(expected: string, accept: (v: unknown) => boolean): Field<T> =>
  field(
    () => INVALID,
    expected,
    (v) => (accept(v) ? (v as T) : INVALID),
  )

/** Anything `accept` says yes to, with `fallback` as the default. */
export const custom = <T>(fallback: () => T, expected: string, accept: (v: unknown) => boolean): Field<T> =>
  field(fallback, expected, (v) => (accept(v) ? (v as T) : INVALID))

/**
 * Read `input` against `schema`: every option gets its given value or its default; an unknown option or an
 * invalid value throws a {@link ClientConfigError} naming it (`where.option` when `where` is given).
 */
export function parseFields<S extends Record<string, Field<any>>>(
  schema: S,
  input: unknown,
  where?: string,
): Parsed<S> {
  const name = (key: string) => (where ? `${where}.${key}` : key)
  if (input !== undefined && (input === null || typeof input !== 'object' || Array.isArray(input))) {
    throw new ClientConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      where ?? 'options',
      input,
      'an object of options',
    )
  }
  const given = (input ?? {}) as Record<string, unknown>
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(schema, key)) {
      const known = Object.keys(schema).join(', ')
      throw new ClientConfigError(
        'ERR_FLOODGATE_UNKNOWN_OPTION',
        name(key),
        given[key],
        `one of the known options (${known})`,
      )
    }
  }
  const out: Record<string, unknown> = {}
  for (const [key, spec] of Object.entries(schema)) out[key] = argument(name(key), given[key], spec)
  return out as Parsed<S>
}

/**
 * Read one value against `spec`, as an option or as an argument of a public function: the value, or the
 * default when it is `undefined`; else a {@link ClientConfigError} naming `where` (`parseRetryAfter.now`),
 * the value and what is allowed.
 *
 * @example const at = argument('readRateLimit.now', now, time)
 */
export function argument<T>(where: string, value: unknown, spec: Field<T>): T {
  const read = value === undefined ? spec.fallback() : spec.read(value)
  if (read === INVALID)
    throw new ClientConfigError('ERR_FLOODGATE_INVALID_OPTION', where, value, spec.expected)
  return read
}

/** A number that must be given (no default): a finite number `>= min`. */
export const requiredNumber = (min: number): Field<number> =>
  field(
    () => INVALID,
    min === Number.NEGATIVE_INFINITY ? 'a finite number' : `a finite number >= ${min}`,
    (v) => (typeof v === 'number' && Number.isFinite(v) && v >= min ? v : INVALID),
  )

/** A time in ms since the epoch: `Date.now()` when not given. */
export const time: Field<number> = field(
  () => Date.now(),
  'a time in ms since the epoch (a finite number, as Date.now() gives)',
  (v) => (typeof v === 'number' && Number.isFinite(v) ? v : INVALID),
)

/** Response headers: a `Headers` (anything with `get`) or a plain object of names. */
export const headerSource: Field<HeaderSource> = field(
  () => INVALID,
  'response headers: a Headers object or a plain object of header names',
  (v) => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as HeaderSource) : INVALID),
)

/** A string that must be given. */
export const requiredText: Field<string> = field(
  () => INVALID,
  'a string',
  (v) => (typeof v === 'string' ? v : INVALID),
)

/** One header's text: a string, or nothing (`null`, as `Headers.get` answers for a missing one). */
export const headerText: Field<string | undefined> = field(
  () => undefined,
  'a header value (a string), null or undefined',
  (v) => (typeof v === 'string' ? v : v === null ? undefined : INVALID),
)
