import type { Location } from './location.js'
import { stepFunction } from './step-signature.js'

/**
 * Fixed window, as `@floodgate/core`'s `fixedWindow` and the Redis script: state `{windowStart, count}`.
 * Parameters: limit, windowMs.
 */
export const fixedWindowSql = (location: Location) =>
  stepFunction(
    location,
    '_fixed_window',
    ['lim', 'w', 'unused_3', 'unused_4'],
    (R) => `
DECLARE
  win_start float8 := floor(now_ms / w) * w;
  stored_count float8 := coalesce(state[2], 0);
  used float8 := 0;
  until_next float8 := win_start + w - now_ms;
BEGIN
  IF op = 'r' THEN
    IF state[1] = win_start THEN
      used := greatest(0, stored_count - cost);
      RETURN (NULL, NULL, NULL, NULL, NULL, ARRAY[win_start, used],
        CASE WHEN used > 0 THEN until_next ELSE 0 END, true)::${R};
    END IF;
    RETURN (NULL, NULL, NULL, NULL, NULL, NULL, 0, false)::${R};
  END IF;
  IF state[1] = win_start THEN used := stored_count; END IF;
  IF used + cost <= lim THEN
    IF op = 'c' THEN
      used := used + cost;
      RETURN (true, floor(lim - used), until_next, 0, 0, ARRAY[win_start, used], until_next, true)::${R};
    END IF;
    RETURN (true, floor(lim - used), CASE WHEN used > 0 THEN until_next ELSE 0 END, 0, 0, NULL, 0, false)::${R};
  END IF;
  -- A cost above the limit never passes: no window holds it.
  RETURN (false, floor(lim - used), CASE WHEN used > 0 THEN until_next ELSE 0 END,
    CASE WHEN cost > lim THEN 'Infinity'::float8 ELSE until_next END, 0, NULL, 0, false)::${R};
END`,
  )
