import { CALL_SETTINGS, CALL_SETTINGS_VARIABLE, DATABASE_CLOCK_MS } from './clock.js'
import { type Location, qualified } from './location.js'
import { runStep } from './step.js'

/**
 * One key's decision, in one statement: lock the key's row (`FOR UPDATE`; a peek only reads), run the step,
 * write what it says (update, or delete a state that is fresh again, or insert a new key; the locked row is
 * written by its `ctid`, with no second index lookup). Two requests for a key that has no row yet both find
 * none: the first insert wins, and the other, finding its insert conflicting, decides again on the row the
 * first made (`ON CONFLICT DO NOTHING`, then the loop).
 *
 * Time is `p_now` when the limiter passes one, else the database's clock. The row is kept until the state is
 * fresh again plus `p_grace` ms, measured on the database's clock (as Redis keeps a key for its TTL), so a
 * caller's clock that runs slower than the database's is not outrun by expiry.
 */
export const decideSql = (location: Location) => {
  const table = qualified(location)
  return `CREATE OR REPLACE FUNCTION ${qualified(location, '_decide')}(
  p_key text, p_algorithm text, p_kind text, p_op text, p_now float8, p_cost float8, p_grace float8,
  p_lock_timeout text, p_durable boolean, p1 float8, p2 float8, p3 float8, p4 float8
) RETURNS ${qualified(location, '_result')}
LANGUAGE plpgsql AS $decide$
DECLARE
  v_clock float8 := ${DATABASE_CLOCK_MS};
  v_now float8 := coalesce(p_now, v_clock);
  v_state float8[];
  v_row tid;
  r ${qualified(location, '_result')};
  ${CALL_SETTINGS_VARIABLE}
BEGIN
  ${CALL_SETTINGS}
  LOOP
    IF p_op = 'p' THEN
      SELECT t.ctid, t.state INTO v_row, v_state FROM ${table} t
        WHERE t.key = p_key AND t.algorithm = p_algorithm;
    ELSE
      SELECT t.ctid, t.state INTO v_row, v_state FROM ${table} t
        WHERE t.key = p_key AND t.algorithm = p_algorithm FOR UPDATE;
    END IF;
    ${runStep(location, 'p_kind', 'v_state, p_op, v_now, p_cost, p1, p2, p3, p4', '    ')}
    IF NOT r.write THEN
      RETURN r;
    END IF;
    IF v_row IS NOT NULL THEN
      IF r.ttl > 0 THEN
        UPDATE ${table} t SET state = r.next_state, expires_at = ceil(v_clock + r.ttl) + p_grace
          WHERE t.ctid = v_row;
      ELSE
        DELETE FROM ${table} t WHERE t.ctid = v_row;
      END IF;
      RETURN r;
    END IF;
    IF r.ttl <= 0 THEN
      RETURN r;
    END IF;
    INSERT INTO ${table} AS t (key, algorithm, state, expires_at)
      VALUES (p_key, p_algorithm, r.next_state, ceil(v_clock + r.ttl) + p_grace)
      ON CONFLICT DO NOTHING;
    IF FOUND THEN
      RETURN r;
    END IF;
  END LOOP;
END
$decide$;
`
}

/** Forget one key's state for one algorithm. */
export const resetSql = (location: Location) => `CREATE OR REPLACE FUNCTION ${qualified(location, '_reset')}(
  p_key text, p_algorithm text, p_lock_timeout text, p_durable boolean
) RETURNS void
LANGUAGE plpgsql AS $reset$
DECLARE
  ${CALL_SETTINGS_VARIABLE}
BEGIN
  ${CALL_SETTINGS}
  DELETE FROM ${qualified(location)} t WHERE t.key = p_key AND t.algorithm = p_algorithm;
END
$reset$;
`

/**
 * Delete at most `p_batch` expired rows, the longest expired first, skipping rows a decision holds
 * (`SKIP LOCKED`): bounded work, no table lock, no wait on a busy key. Returns how many it deleted.
 */
export const sweepSql = (location: Location) => {
  const table = qualified(location)
  return `CREATE OR REPLACE FUNCTION ${qualified(location, '_sweep')}(p_batch integer, p_lock_timeout text)
RETURNS integer
LANGUAGE plpgsql AS $sweep$
DECLARE
  v_clock float8 := ${DATABASE_CLOCK_MS};
  v_deleted integer;
  ${CALL_SETTINGS_VARIABLE}
BEGIN
  v_setting := set_config('lock_timeout', p_lock_timeout, true);
  v_setting := set_config('synchronous_commit', 'off', true);
  DELETE FROM ${table} t
    WHERE t.ctid = ANY (ARRAY(
      SELECT e.ctid FROM ${table} e WHERE e.expires_at < v_clock
      ORDER BY e.expires_at LIMIT p_batch FOR UPDATE SKIP LOCKED))
    AND t.expires_at < v_clock;
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  RETURN v_deleted;
END
$sweep$;
`
}
