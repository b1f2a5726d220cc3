import { CALL_SETTINGS, CALL_SETTINGS_VARIABLE, DATABASE_CLOCK_MS } from './clock.js'
import { type Location, qualified } from './location.js'
import { runStep } from './step.js'

/** The `algorithm` of the row that holds a key's ban (no algorithm's id is a bare word: theirs hold a colon). */
export const BAN_ROW = 'ban'

/**
 * The decisions of several requests whose items may carry a ban (`floodgate_consume_batch`'s, plus bans), in
 * one statement: the store sends every statement that has an item with a ban here, a lone request included,
 * and the others to the functions without bans (so a database migrated before bans serves them still).
 *
 * A key's ban is a row of its own, `(key, 'ban')`, whose state is `until count start` (as core's
 * `stores/bans.ts`); it is locked with the states' rows, in the same one order. Per request, in order:
 * 1. An item whose key is banned (`until` after now) refuses the request: its decision is the ban's, every
 *    other item is peeked, nothing is consumed or counted.
 * 2. Else the request is decided as `floodgate_consume_batch` decides it; when it is refused, each item with a
 *    ban whose own decision refused counts one refusal (a count whose `within` has run starts again at one),
 *    and the `after`-th bans its key until now + `for` (its decision becomes the ban's, started).
 *
 * `p_bans` holds three numbers per item, `after within for` (`after` 0: no ban). Returns one row per item, in
 * order, with a `concurrency` admission's lease number, `banned_ms` (0 unless banned) and `banned_now`.
 */
export const consumeBannedSql = (location: Location) => {
  const table = qualified(location)
  const result = qualified(location, '_result')
  const args = (op: string) =>
    `v_state, '${op}', v_now, p_costs[j], p_params[k + 1], p_params[k + 2], p_params[k + 3], p_params[k + 4]`
  const pair = 't.key = v_keys[s] AND t.algorithm = v_algorithms[s]'
  const banned = (ms: string) =>
    `r := v_results[j]; r.allowed := false; r.remaining := 0; r.reset_ms := ${ms}; ` +
    `r.retry_after_ms := ${ms}; r.delay_ms := 0; v_results[j] := r; v_banned_ms[j] := ${ms};`
  return `CREATE OR REPLACE FUNCTION ${qualified(location, '_consume_banned')}(
  p_sizes integer[], p_nows float8[], p_keys text[], p_algorithms text[], p_kinds text[], p_costs float8[],
  p_params float8[], p_bans float8[], p_grace float8, p_lock_timeout text, p_durable boolean
) RETURNS TABLE (
  allowed boolean, remaining float8, reset_ms float8, retry_after_ms float8, delay_ms float8, lease float8,
  banned_ms float8, banned_now boolean
)
LANGUAGE plpgsql AS $consume_banned$
DECLARE
  v_clock float8 := ${DATABASE_CLOCK_MS};
  n integer := cardinality(p_keys);
  v_now float8;
  v_keys text[];
  v_algorithms text[];
  v_slots integer[];
  v_ban_slots integer[];
  v_rows tid[] := '{}';
  v_created boolean[] := '{}';
  v_states ${result}[] := '{}';
  v_results ${result}[] := array_fill(NULL::${result}, ARRAY[n]);
  v_banned_ms float8[] := array_fill(0::float8, ARRAY[n]);
  v_banned_now boolean[] := array_fill(false, ARRAY[n]);
  v_state float8[];
  v_row tid;
  v_all boolean;
  v_banned boolean;
  v_last integer := 0;
  r ${result};
  w ${result};
  g integer;
  j integer;
  k integer;
  b integer;
  s integer;
  ${CALL_SETTINGS_VARIABLE}
BEGIN
  ${CALL_SETTINGS}
  SELECT array_agg(d.key ORDER BY d.key, d.algorithm), array_agg(d.algorithm ORDER BY d.key, d.algorithm)
    INTO v_keys, v_algorithms
    FROM (SELECT DISTINCT u.key COLLATE "C" AS key, u.algorithm COLLATE "C" AS algorithm
      FROM (SELECT a.key, a.algorithm FROM unnest(p_keys, p_algorithms) AS a(key, algorithm)
        UNION ALL
        SELECT a.key, '${BAN_ROW}' FROM unnest(p_keys) WITH ORDINALITY AS a(key, i)
          WHERE p_bans[(a.i - 1) * 3 + 1] > 0) u) d;
  SELECT array_agg(p.slot::integer ORDER BY u.i) INTO v_slots
    FROM unnest(p_keys, p_algorithms) WITH ORDINALITY AS u(key, algorithm, i)
    JOIN unnest(v_keys, v_algorithms) WITH ORDINALITY AS p(key, algorithm, slot)
      ON p.key = u.key COLLATE "C" AND p.algorithm = u.algorithm COLLATE "C";
  SELECT array_agg(p.slot::integer ORDER BY u.i) INTO v_ban_slots
    FROM unnest(p_keys) WITH ORDINALITY AS u(key, i)
    LEFT JOIN unnest(v_keys, v_algorithms) WITH ORDINALITY AS p(key, algorithm, slot)
      ON p_bans[(u.i - 1) * 3 + 1] > 0 AND p.key = u.key COLLATE "C" AND p.algorithm = '${BAN_ROW}';
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
    v_banned := false;
    FOR j IN v_last + 1..v_last + p_sizes[g] LOOP
      s := v_ban_slots[j];
      IF s IS NOT NULL THEN
        v_state := (v_states[s]).next_state;
        IF v_state IS NOT NULL AND v_state[1] > v_now THEN
          v_banned := true;
          ${banned('v_state[1] - v_now')}
        END IF;
      END IF;
    END LOOP;
    IF v_banned THEN
      FOR j IN v_last + 1..v_last + p_sizes[g] LOOP
        IF v_banned_ms[j] = 0 THEN
          k := (j - 1) * 4;
          v_state := (v_states[v_slots[j]]).next_state;
          ${runStep(location, 'p_kinds[j]', args('p'), '          ')}
          v_results[j] := r;
        END IF;
      END LOOP;
    ELSE
      IF p_sizes[g] > 1 THEN
        FOR j IN v_last + 1..v_last + p_sizes[g] LOOP
          k := (j - 1) * 4;
          v_state := (v_states[v_slots[j]]).next_state;
          ${runStep(location, 'p_kinds[j]', args('p'), '          ')}
          v_results[j] := r;
          v_all := v_all AND r.allowed;
        END LOOP;
      END IF;
      IF v_all THEN
        FOR j IN v_last + 1..v_last + p_sizes[g] LOOP
          k := (j - 1) * 4;
          s := v_slots[j];
          v_state := (v_states[s]).next_state;
          ${runStep(location, 'p_kinds[j]', args('c'), '          ')}
          v_results[j] := r;
          IF r.write THEN
            v_states[s] := r;
          END IF;
        END LOOP;
      END IF;
      FOR j IN v_last + 1..v_last + p_sizes[g] LOOP
        s := v_ban_slots[j];
        IF s IS NOT NULL AND NOT (v_results[j]).allowed THEN
          b := (j - 1) * 3;
          v_state := coalesce((v_states[s]).next_state, ARRAY[0, 0, 0]::float8[]);
          IF v_state[2] = 0 OR v_now - v_state[3] >= p_bans[b + 2] THEN
            v_state[2] := 1;
            v_state[3] := v_now;
          ELSE
            v_state[2] := v_state[2] + 1;
          END IF;
          IF v_state[2] >= p_bans[b + 1] THEN
            v_state := ARRAY[v_now + p_bans[b + 3], 0, 0]::float8[];
            ${banned('p_bans[b + 3]')}
            v_banned_now[j] := true;
          END IF;
          w.next_state := v_state;
          w.ttl := greatest(0, v_state[1] - v_now,
            CASE WHEN v_state[2] > 0 THEN v_state[3] + p_bans[b + 2] - v_now ELSE 0 END);
          w.write := true;
          v_states[s] := w;
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
  RETURN QUERY SELECT (v_results[i]).allowed, (v_results[i]).remaining, (v_results[i]).reset_ms,
    (v_results[i]).retry_after_ms, (v_results[i]).delay_ms,
    CASE WHEN (v_results[i]).allowed AND (v_results[i]).write THEN ((v_results[i]).next_state)[1] END,
    v_banned_ms[i], v_banned_now[i]
    FROM generate_series(1, n) AS i;
END
$consume_banned$;
`
}
