/**
 * The database's clock in ms since the epoch: `clock_timestamp()` (the time now, not the transaction's
 * start), to the microsecond (an epoch in seconds as a double is exact to a quarter of a microsecond).
 */
export const DATABASE_CLOCK_MS = "date_part('epoch', clock_timestamp()) * 1000"

/**
 * The settings every call makes for its own transaction only (`set_config(..., true)` is `SET LOCAL`):
 * `lock_timeout` bounds how long it waits for a row or table lock another session holds, and, unless the
 * store asks for durable commits, `synchronous_commit = off` spares the wait for the WAL flush.
 */
export const CALL_SETTINGS = `v_setting := set_config('lock_timeout', p_lock_timeout, true);
  IF NOT p_durable THEN
    v_setting := set_config('synchronous_commit', 'off', true);
  END IF;`

/** The variable {@link CALL_SETTINGS} assigns to (an assignment is cheaper in PL/pgSQL than a PERFORM). */
export const CALL_SETTINGS_VARIABLE = 'v_setting text;'
