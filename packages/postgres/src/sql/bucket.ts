import type { Step } from './step-signature.js'

/**
 * The meter both buckets share, as `@floodgate/core`'s `meter.ts` and the Redis script: state
 * `{level x interval, lastUpdate}`, the level scaled by the interval (units x ms), draining `rate` scaled
 * units per ms. Parameters: capacity, rate, intervalMs, shape (1: a leaky bucket in shaping mode).
 */
export const bucketStep: Step = {
  suffix: '_bucket',
  params: ['capacity', 'rate', 'interval_ms', 'shape'],
  body: (R) => `
DECLARE
  stored float8 := coalesce(state[1], 0);
  elapsed float8;
  lvl float8 := 0;
  full_level float8 := capacity * interval_ms;
  nxt float8;
BEGIN
  IF stored > 0 THEN
    elapsed := now_ms - state[2];
    IF elapsed > 0 THEN lvl := greatest(0, stored - elapsed * rate); ELSE lvl := stored; END IF;
  END IF;
  IF op = 'r' THEN
    IF state IS NULL THEN
      RETURN (NULL, NULL, NULL, NULL, NULL, NULL, 0, false)::${R};
    END IF;
    lvl := greatest(0, lvl - cost * interval_ms);
    RETURN (NULL, NULL, NULL, NULL, NULL, ARRAY[lvl, now_ms], lvl / rate, true)::${R};
  END IF;
  nxt := lvl + cost * interval_ms;
  IF op = 's' THEN
    -- A charge (a settled cost): the level may go above the capacity, a debt that drains at the rate.
    RETURN (NULL, NULL, NULL, NULL, NULL, ARRAY[nxt, now_ms], nxt / rate, true)::${R};
  END IF;
  IF nxt <= full_level THEN
    IF op = 'c' THEN
      RETURN (true, floor((full_level - nxt) / interval_ms), ceil(nxt / rate), 0,
        CASE WHEN shape = 1 THEN ceil(lvl / rate) ELSE 0 END, ARRAY[nxt, now_ms], nxt / rate, true)::${R};
    END IF;
    RETURN (true, floor((full_level - lvl) / interval_ms), ceil(lvl / rate), 0,
      CASE WHEN shape = 1 THEN ceil(lvl / rate) ELSE 0 END, NULL, 0, false)::${R};
  END IF;
  -- A cost above the capacity never passes: even an empty bucket cannot hold it.
  RETURN (false, greatest(0, floor((full_level - lvl) / interval_ms)), ceil(lvl / rate),
    CASE WHEN cost > capacity THEN 'Infinity'::float8 ELSE ceil((nxt - full_level) / rate) END, 0,
    NULL, 0, false)::${R};
END`,
}
