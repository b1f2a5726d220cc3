import type { Step } from './step-signature.js'

/**
 * GCRA, as `@floodgate/core`'s `gcra` and the Redis script: state `{tat}`, the theoretical arrival time.
 * `eps` is core's `EPSILON` (1e-3 ms); the `CASE`s on it are core's `ceilMs` and `floorUnits`.
 * Parameters: emissionMs, toleranceMs, burst.
 */
export const gcraStep: Step = {
  suffix: '_gcra',
  params: ['emission', 'tolerance', 'burst', 'unused_4'],
  body: (R) => `
DECLARE
  eps CONSTANT float8 := 1e-3;
  tat float8;
  nxt float8;
  ahead float8;
  units float8;
BEGIN
  IF op = 'r' THEN
    IF state IS NULL THEN
      RETURN (NULL, NULL, NULL, NULL, NULL, NULL, 0, false)::${R};
    END IF;
    tat := greatest(now_ms, state[1] - cost * emission);
    RETURN (NULL, NULL, NULL, NULL, NULL, ARRAY[tat], tat - now_ms, true)::${R};
  END IF;
  tat := greatest(coalesce(state[1], 0), now_ms);
  nxt := tat + cost * emission;
  IF op = 's' THEN
    -- A charge (a settled cost): the TAT may run past the tolerance, a debt the next requests wait out.
    RETURN (NULL, NULL, NULL, NULL, NULL, ARRAY[nxt], nxt - now_ms, true)::${R};
  END IF;
  IF nxt - now_ms <= tolerance + eps THEN
    IF op = 'c' THEN ahead := nxt - now_ms; ELSE ahead := tat - now_ms; END IF;
    units := (tolerance - ahead) / emission;
    RETURN (true, CASE WHEN units <= 0 THEN 0 ELSE floor(units + eps) END,
      CASE WHEN ahead <= eps THEN 0 ELSE ceil(ahead - eps) END, 0, 0,
      CASE WHEN op = 'c' THEN ARRAY[nxt] END, ahead, op = 'c')::${R};
  END IF;
  ahead := tat - now_ms;
  units := (tolerance - ahead) / emission;
  -- A cost above the burst never passes: even a rested key has only \`burst\` of room.
  RETURN (false, CASE WHEN units <= 0 THEN 0 ELSE floor(units + eps) END,
    CASE WHEN ahead <= eps THEN 0 ELSE ceil(ahead - eps) END,
    CASE WHEN cost > burst THEN 'Infinity'::float8
      WHEN nxt - now_ms - tolerance <= eps THEN 0 ELSE ceil(nxt - now_ms - tolerance - eps) END,
    0, NULL, 0, false)::${R};
END`,
}
