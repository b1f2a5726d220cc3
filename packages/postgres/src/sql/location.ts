/**
 * Where the store's objects live: a schema and a table. Every other object (the functions, the result
 * type, the expiry index) is named after the table, so two tables in one schema never share a function.
 */
export interface Location {
  readonly schema: string
  readonly table: string
}

/** The default location: `public.floodgate`. */
export const DEFAULT_LOCATION: Location = { schema: 'public', table: 'floodgate' }

/** The suffixes of the objects named after the table; the longest decides how long a table name may be. */
const SUFFIXES = [
  '_result',
  '_expires_at',
  '_fixed_window',
  '_sliding_window_counter',
  '_sliding_window_log',
  '_bucket',
  '_gcra',
  '_calendar_quota',
  '_concurrency',
  '_days_from_civil',
  '_decide',
  '_consume_all',
  '_consume_batch',
  '_consume_banned',
  '_reset',
  '_sweep',
  '_settings',
] as const

export type ObjectSuffix = (typeof SUFFIXES)[number]

/** PostgreSQL truncates identifiers past 63 bytes; a table name leaves room for the longest suffix. */
export const MAX_TABLE_LENGTH = 63 - Math.max(...SUFFIXES.map((s) => s.length))

/** What schema and table names may be: lower-case letters, digits and `_`, not starting with a digit. */
export const IDENTIFIER = /^[a-z_][a-z0-9_]*$/

/** An identifier, double-quoted (names are checked against {@link IDENTIFIER}, so no quote can occur). */
const quote = (name: string) => `"${name}"`

/** The schema-qualified, quoted name of the table (no suffix) or of an object named after it. */
export function qualified(location: Location, suffix: ObjectSuffix | '' = ''): string {
  return `${quote(location.schema)}.${quote(location.table + suffix)}`
}

/** The unqualified, quoted name of an object named after the table (an index is named without a schema). */
export function local(location: Location, suffix: ObjectSuffix): string {
  return quote(location.table + suffix)
}
