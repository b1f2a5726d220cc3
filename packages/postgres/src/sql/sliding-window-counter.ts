import type { Step } from './step-signature.js'

/**
 * Sliding window counter, as `@floodgate/core`'s `slidingWindowCounter` and the Redis script: state
 * `{windowStart, current, previous}`, the arithmetic in count x ms in the same order as the TypeScript.
 * Parameters: limit, windowMs.
 */
export const slidingWindowCounterStep: Step = {
  suffix: '_sliding_window_counter',
  params: ['lim', 'w', 'unused_3', 'unused_4'],
  body: (R) => `
DECLARE
  win_start float8 := floor(now_ms / w) * w;
  curr float8 := 0;
  prev float8 := 0;
  prev_weighted float8;
  until_next float8 := win_start + w - now_ms;
  retry float8;
BEGIN
  IF op = 'r' THEN
    IF state[1] = win_start THEN
      curr := greatest(0, state[2] - cost);
      prev := state[3];
      RETURN (NULL, NULL, NULL, NULL, NULL, ARRAY[win_start, curr, prev],
        CASE WHEN curr > 0 THEN win_start + 2 * w WHEN prev > 0 THEN win_start + w ELSE 0 END - now_ms, true)::${R};
    END IF;
    RETURN (NULL, NULL, NULL, NULL, NULL, NULL, 0, false)::${R};
  END IF;
  IF state[1] = win_start THEN
    curr := state[2];
    prev := state[3];
  ELSIF state[1] = win_start - w THEN
    prev := state[2];
  END IF;
  IF op = 's' THEN
    -- A charge (a settled cost): into the current window, past the limit if need be.
    curr := curr + cost;
    RETURN (NULL, NULL, NULL, NULL, NULL, ARRAY[win_start, curr, prev], win_start + 2 * w - now_ms, true)::${R};
  END IF;
  -- The previous window's share, times w.
  prev_weighted := prev * (w - (now_ms - win_start));
  IF (curr + cost) * w + prev_weighted <= lim * w THEN
    IF op = 'c' THEN
      curr := curr + cost;
      RETURN (true, greatest(0, floor((lim * w - curr * w - prev_weighted) / w)), until_next + w, 0, 0,
        ARRAY[win_start, curr, prev], win_start + 2 * w - now_ms, true)::${R};
    END IF;
    RETURN (true, greatest(0, floor((lim * w - curr * w - prev_weighted) / w)),
      CASE WHEN curr > 0 THEN until_next + w WHEN prev > 0 THEN until_next ELSE 0 END, 0, 0, NULL, 0, false)::${R};
  END IF;
  IF cost > lim THEN
    retry := 'Infinity'; -- no window holds it
  ELSIF curr + cost <= lim THEN
    -- Later in this window the previous window's weight has decayed enough.
    retry := ceil((prev_weighted - (lim - cost - curr) * w) / prev);
  ELSE
    -- Only in the next window, once the current count (then the previous one) has decayed enough.
    retry := until_next + ceil((w * (curr + cost - lim)) / curr);
  END IF;
  RETURN (false, greatest(0, floor((lim * w - curr * w - prev_weighted) / w)),
    CASE WHEN curr > 0 THEN until_next + w ELSE until_next END, retry, 0, NULL, 0, false)::${R};
END`,
}
