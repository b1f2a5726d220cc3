/**
 * The database's clock in ms since the epoch, to the microsecond: `clock_timestamp()` (the time now, not the
 * transaction's start), exact in `numeric`, then rounded once to a double.
 */
export const DATABASE_CLOCK_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::float8'

/**
 * The settings every call makes for its own transaction only (`set_config(..., true)` is `SET LOCAL`):
 * `lock_timeout` bounds how long it waits for a row or table lock another session holds, and, unless the
 * store asks for durable commits, `synchronous_commit = off` spares the wait for the WAL flush.
 */
export const CALL_SETTINGS =
  "PERFORM set_config('lock_timeout', p_lock_timeout, true), " +
  "CASE WHEN NOT p_durable THEN set_config('synchronous_commit', 'off', true) END;"
