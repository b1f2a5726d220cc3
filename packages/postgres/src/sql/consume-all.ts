import { CALL_SETTINGS, CALL_SETTINGS_VARIABLE, DATABASE_CLOCK_MS } from './clock.js'
import { type Location, qualified } from './location.js'
import { runStep } from './step.js'

/**
 * Several keys (each its own algorithm) decided as one, in one statement: all are consumed or none.
 *
 * 1. Every key's row is locked, in one order (key, then algorithm, byte-wise) whatever the caller's, so two
 *    requests over the same keys can never deadlock. A key with no row yet gets an empty one (a `NULL`
 *    state, which the steps read as fresh) so that it is locked too.
 * 2. Every item is peeked. If one would be refused, the rows made in step 1 are deleted and the peeks are
 *    the answer: nothing is spent.
 * 3. Otherwise every item is consumed, in the caller's order, and those decisions are the answer.
 *
 * Items carry four parameter slots each, flattened into `p_params`. Returns one row per item, in order.
 */
export const consumeAllSql = (location: Location) => {
  const table = qualified(location)
  const result = qualified(location, '_result')
  const args = (op: string) =>
    `v_state, '${op}', v_now, p_costs[i], p_params[k + 1], p_params[k + 2], p_params[k + 3], p_params[k + 4]`
  const same = 't.key = p_keys[i] AND t.algorithm = p_algorithms[i]'
  return `CREATE OR REPLACE FUNCTION ${qualified(location, '_consume_all')}(
  p_keys text[], p_algorithms text[], p_kinds text[], p_costs float8[], p_params float8[], p_now float8,
  p_grace float8, p_lock_timeout text, p_durable boolean
) RETURNS SETOF ${result}
LANGUAGE plpgsql AS $consume_all$
DECLARE
  v_clock float8 := ${DATABASE_CLOCK_MS};
  v_now float8 := coalesce(p_now, v_clock);
  n integer := cardinality(p_keys);
  v_order integer[];
  v_created boolean[] := array_fill(false, ARRAY[n]);
  v_results ${result}[] := '{}';
  v_state float8[];
  v_all boolean := true;
  r ${result};
  i integer;
  k integer;
  ${CALL_SETTINGS_VARIABLE}
BEGIN
  ${CALL_SETTINGS}
  SELECT array_agg(u.i ORDER BY u.key COLLATE "C", u.algorithm COLLATE "C") INTO v_order
    FROM unnest(p_keys, p_algorithms) WITH ORDINALITY AS u(key, algorithm, i);
  FOREACH i IN ARRAY v_order LOOP
    LOOP
      PERFORM FROM ${table} t WHERE ${same} FOR UPDATE;
      EXIT WHEN FOUND;
      INSERT INTO ${table} AS t (key, algorithm, state, expires_at)
        VALUES (p_keys[i], p_algorithms[i], NULL, v_clock) ON CONFLICT DO NOTHING;
      IF FOUND THEN
        v_created[i] := true;
        EXIT;
      END IF;
    END LOOP;
  END LOOP;
  FOR i IN 1..n LOOP
    k := (i - 1) * 4;
    SELECT t.state INTO v_state FROM ${table} t WHERE ${same};
    ${runStep(location, 'p_kinds[i]', args('p'), '    ')}
    v_results[i] := r;
    v_all := v_all AND r.allowed;
  END LOOP;
  IF NOT v_all THEN
    DELETE FROM ${table} t USING unnest(p_keys, p_algorithms, v_created) AS c(key, algorithm, created)
      WHERE c.created AND t.key = c.key AND t.algorithm = c.algorithm;
    RETURN QUERY SELECT * FROM unnest(v_results);
    RETURN;
  END IF;
  FOR i IN 1..n LOOP
    k := (i - 1) * 4;
    SELECT t.state INTO v_state FROM ${table} t WHERE ${same};
    ${runStep(location, 'p_kinds[i]', args('c'), '    ')}
    v_results[i] := r;
    IF r.write THEN
      IF r.ttl > 0 THEN
        UPDATE ${table} t SET state = r.next_state, expires_at = ceil(v_clock + r.ttl) + p_grace WHERE ${same};
      ELSE
        DELETE FROM ${table} t WHERE ${same};
      END IF;
    END IF;
  END LOOP;
  RETURN QUERY SELECT * FROM unnest(v_results);
END
$consume_all$;
`
}
