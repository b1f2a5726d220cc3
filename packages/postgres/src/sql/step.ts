import { type Location, qualified } from './location.js'

/** Each algorithm kind's step function (both buckets share one). */
const STEPS = [
  ['fixed-window', '_fixed_window'],
  ['sliding-window-counter', '_sliding_window_counter'],
  ['sliding-window-log', '_sliding_window_log'],
  ['token-bucket', '_bucket'],
  ['leaky-bucket', '_bucket'],
  ['gcra', '_gcra'],
] as const

/** The dispatcher: one step of the algorithm of `kind`, with the same arguments as every step function. */
export const stepSql = (location: Location) => `CREATE OR REPLACE FUNCTION ${qualified(location, '_step')}(
  kind text, state float8[], op text, now_ms float8, cost float8, p1 float8, p2 float8, p3 float8, p4 float8
) RETURNS ${qualified(location, '_result')}
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $step$
BEGIN
  CASE kind
${STEPS.map(
  ([kind, suffix]) =>
    `    WHEN '${kind}' THEN RETURN ${qualified(location, suffix)}(state, op, now_ms, cost, p1, p2, p3, p4);`,
).join('\n')}
    ELSE RAISE EXCEPTION 'Floodgate has no step for the algorithm kind %', kind USING ERRCODE = '22023';
  END CASE;
END
$step$;
`
