import { CallFailure } from '@floodgate/core/internal'
import type { Location } from './sql/location.js'

/**
 * Stable codes of the errors the PostgresStore rejects with when it cannot answer (and reports to `onError`):
 * PostgreSQL did not answer within the store's bound (the limiter's `storeTimeout`) or `lockTimeoutMs`; it is
 * unreachable, or failed recently and is not tried again yet (the circuit is open); it answered with an error;
 * the store's table or functions are missing.
 */
export type PostgresStoreErrorCode =
  | 'ERR_FLOODGATE_POSTGRES_TIMEOUT'
  | 'ERR_FLOODGATE_POSTGRES_UNAVAILABLE'
  | 'ERR_FLOODGATE_POSTGRES_FAILED'
  | 'ERR_FLOODGATE_POSTGRES_NOT_MIGRATED'

/** Why the PostgresStore could not answer: see {@link PostgresStoreErrorCode}; `cause` holds the driver's error. */
export class PostgresStoreError extends Error {
  override readonly name = 'PostgresStoreError'
  readonly code: PostgresStoreErrorCode
  constructor(code: PostgresStoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}

/**
 * The SQLSTATE of an error PostgreSQL sent (`pg`'s `DatabaseError`, which has a `severity`), or `undefined`
 * for anything else: a connection refused or lost, a timeout, a driver error.
 */
export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined
  const { code, severity } = error as { code?: unknown; severity?: unknown }
  return typeof code === 'string' && typeof severity === 'string' ? code : undefined
}

/** The server gave up waiting: `lock_timeout` (55P03) or a statement cancelled (57014). */
const BOUNDED = new Set(['55P03', '57014'])
/** The server is going away or cannot serve: the connection is gone or unusable. */
const OUTAGE_CLASSES = new Set(['08', '53', '58'])
const OUTAGE_STATES = new Set(['57P01', '57P02', '57P03', '57P04', '57P05'])
/** No such function, table, type or schema: the migration was not run for this schema and table. */
const MISSING = new Set(['42883', '42P01', '42704', '3F000'])

/**
 * How a call failed, from its error: a server error reply on a healthy connection is not an outage (the
 * circuit stays closed); a connection error, a server shutting down, or no connection at all is. A lock wait
 * cut short by `lock_timeout` counts as the timeout it is, but not as an outage: one busy key must not stop
 * the store from deciding the others.
 */
export function classify(error: unknown, location: Location): CallFailure {
  const state = sqlState(error)
  if (state === undefined) return new CallFailure(error, false, true)
  if (BOUNDED.has(state)) return new CallFailure(error, true, false)
  if (OUTAGE_CLASSES.has(state.slice(0, 2)) || OUTAGE_STATES.has(state))
    return new CallFailure(error, false, true)
  if (MISSING.has(state)) {
    const { schema, table } = location
    const message =
      `The PostgresStore's table or functions are missing in ${schema}.${table}: ` +
      `run migrate(pool, { schema: '${schema}', table: '${table}' }) first (${(error as Error).message})`
    return new CallFailure(
      new PostgresStoreError('ERR_FLOODGATE_POSTGRES_NOT_MIGRATED', message, { cause: error }),
      false,
      false,
    )
  }
  return new CallFailure(error, false, false)
}

/**
 * The error a failed call rejects with: its own, when it is already the store's (a timeout, a missing
 * migration), else one wrapping it (a lock wait cut short by `lock_timeout` is a timeout).
 */
export function storeErrorOf(failure: CallFailure): PostgresStoreError {
  const { error } = failure
  if (error instanceof PostgresStoreError) return error
  const text = error instanceof Error ? error.message : String(error)
  if (failure.timedOut) {
    return new PostgresStoreError('ERR_FLOODGATE_POSTGRES_TIMEOUT', `PostgreSQL gave up waiting: ${text}`, {
      cause: error,
    })
  }
  return failure.outage
    ? new PostgresStoreError('ERR_FLOODGATE_POSTGRES_UNAVAILABLE', `PostgreSQL is unreachable: ${text}`, {
        cause: error,
      })
    : new PostgresStoreError('ERR_FLOODGATE_POSTGRES_FAILED', `PostgreSQL could not decide: ${text}`, {
        cause: error,
      })
}

/** What a call rejects with while the circuit is open: PostgreSQL failed recently and is not tried again yet. */
export const circuitOpenError = (): PostgresStoreError =>
  new PostgresStoreError(
    'ERR_FLOODGATE_POSTGRES_UNAVAILABLE',
    'PostgreSQL failed recently and is not tried again until its cooldown has passed',
  )
