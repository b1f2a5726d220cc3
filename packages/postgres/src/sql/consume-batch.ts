import { CALL_SETTINGS, CALL_SETTINGS_VARIABLE, DATABASE_CLOCK_MS } from './clock.js'
import { type Location, qualified } from './location.js'
import { runStep } from './step.js'

/**
 * The decisions of several requests (a tick's batch) in one statement, each request decided on its own, in
 * the order given: a request of one item is consumed (a refusal changes nothing), a request of several items
 * is consumed whole or not at all, exactly as `floodgate_consume_all` decides it; one request's refusal
 * changes nothing of another's, and two requests for one key are decided one after the other, as two
 * statements would be.
 *
 * 1. The distinct (key, algorithm) pairs of every item are locked, in one order (key, then algorithm,
 *    byte-wise), as `floodgate_consume_all` locks them, so no two statements over the same keys can deadlock.
 *    A pair with no row yet gets an empty one (a `NULL` state, read as fresh) so that it is locked too.
 * 2. Each pair's state is read once; the requests are decided in order on those states, in memory: a request
 *    of several items peeks each, and consumes them all only when all pass (else the peeks are its answer).
 * 3. Each pair's row is written once, with its last state: updated (by `ctid`), or deleted when that state is
 *    fresh again, or when it was made empty in step 1 and nothing was consumed on it.
 *
 * Requests are given by `p_sizes` (how many consecutive items each has) and `p_nows` (each one's time, `NULL`
 * for the database's clock, read once for the statement); items carry four parameter slots each, flattened
 * into `p_params`. Returns one row per item, in order.
 */
export const consumeBatchSql = (location: Location) => {
  const table = qualified(location)
  const result = qualified(location, '_result')
  const args = (op: string) =>
    `v_state, '${op}', v_now, p_costs[j], p_params[k + 1], p_params[k + 2], p_params[k + 3], p_params[k + 4]`
  const pair = 't.key = v_keys[s] AND t.algorithm = v_algorithms[s]'
  return `CREATE OR REPLACE FUNCTION ${qualified(location, '_consume_batch')}(
  p_sizes integer[], p_nows float8[], p_keys text[], p_algorithms text[], p_kinds text[], p_costs float8[],
  p_params float8[], p_grace float8, p_lock_timeout text, p_durable boolean
) RETURNS SETOF ${result}
LANGUAGE plpgsql AS $consume_batch$
DECLARE
  v_clock float8 := ${DATABASE_CLOCK_MS};
  v_now float8;
  v_keys text[];
  v_algorithms text[];
  v_slots integer[];
  v_rows tid[] := '{}';
  v_created boolean[] := '{}';
  v_states ${result}[] := '{}';
  v_results ${result}[] := '{}';
  v_state float8[];
  v_row tid;
  v_all boolean;
  v_last integer := 0;
  r ${result};
  g integer;
  j integer;
  k integer;
  s integer;
  ${CALL_SETTINGS_VARIABLE}
BEGIN
  ${CALL_SETTINGS}
  SELECT array_agg(d.key ORDER BY d.key, d.algorithm), array_agg(d.algorithm ORDER BY d.key, d.algorithm)
    INTO v_keys, v_algorithms
    FROM (SELECT DISTINCT u.key COLLATE "C" AS key, u.algorithm COLLATE "C" AS algorithm
      FROM unnest(p_keys, p_algorithms) AS u(key, algorithm)) d;
  SELECT array_agg(p.slot::integer ORDER BY u.i) INTO v_slots
    FROM unnest(p_keys, p_algorithms) WITH ORDINALITY AS u(key, algorithm, i)
    JOIN unnest(v_keys, v_algorithms) WITH ORDINALITY AS p(key, algorithm, slot)
      ON p.key = u.key COLLATE "C" AND p.algorithm = u.algorithm COLLATE "C";
  FOR s IN 1..cardinality(v_keys) LOOP
    v_created[s] := false;
    LOOP
      SELECT t.ctid, t.state INTO v_row, v_state FROM ${table} t WHERE ${pair} FOR UPDATE;
      EXIT WHEN FOUND;
      INSERT INTO ${table} AS t (key, algorithm, state, expires_at)
        VALUES (v_keys[s], v_algorithms[s], NULL, v_clock) ON CONFLICT DO NOTHING RETURNING t.ctid INTO v_row;
      IF FOUND THEN
        v_created[s] := true;
        v_state := NULL;
        EXIT;
      END IF;
    END LOOP;
    v_rows[s] := v_row;
    r.next_state := v_state;
    r.ttl := 0;
    r.write := false;
    v_states[s] := r;
  END LOOP;
  FOR g IN 1..cardinality(p_sizes) LOOP
    v_now := coalesce(p_nows[g], v_clock);
    v_all := true;
    IF p_sizes[g] > 1 THEN
      FOR j IN v_last + 1..v_last + p_sizes[g] LOOP
        k := (j - 1) * 4;
        v_state := (v_states[v_slots[j]]).next_state;
        ${runStep(location, 'p_kinds[j]', args('p'), '        ')}
        v_results[j] := r;
        v_all := v_all AND r.allowed;
      END LOOP;
    END IF;
    IF v_all THEN
      FOR j IN v_last + 1..v_last + p_sizes[g] LOOP
        k := (j - 1) * 4;
        s := v_slots[j];
        v_state := (v_states[s]).next_state;
        ${runStep(location, 'p_kinds[j]', args('c'), '        ')}
        v_results[j] := r;
        IF r.write THEN
          v_states[s] := r;
        END IF;
      END LOOP;
    END IF;
    v_last := v_last + p_sizes[g];
  END LOOP;
  FOR s IN 1..cardinality(v_keys) LOOP
    r := v_states[s];
    IF r.write AND r.ttl > 0 THEN
      UPDATE ${table} t SET state = r.next_state, expires_at = ceil(v_clock + r.ttl) + p_grace
        WHERE t.ctid = v_rows[s];
    ELSIF r.write OR v_created[s] THEN
      DELETE FROM ${table} t WHERE t.ctid = v_rows[s];
    END IF;
  END LOOP;
  RETURN QUERY SELECT * FROM unnest(v_results);
END
$consume_batch$;
`
}
