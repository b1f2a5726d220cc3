import type { Step } from './step-signature.js'

/**
 * Sliding window log, as `@floodgate/core`'s `slidingWindowLog` and the Redis script: state is the expiry
 * times (`admittedAt + window`) of admitted units, oldest first, as the Redis list holds them. The TypeScript
 * keeps a ring of `limit` slots where zeros and past times are free; the array holds the same entries minus
 * (some of) the free ones, so `free = limit - live`, the newest entry is the array's last, and the ring's
 * `i`-th oldest entry (from 0) is the array's `skip + i - free + 1`-th. Expired entries are dropped when a
 * request is admitted; a refund drops the newest entries (the ring zeroes them). Costs are whole entries: a
 * fractional cost is rounded up. Parameters: limit, windowMs.
 */
export const slidingWindowLogStep: Step = {
  suffix: '_sliding_window_log',
  params: ['lim', 'w', 'unused_3', 'unused_4'],
  body: (R) => `
DECLARE
  whole float8 := ceil(cost);
  n int := coalesce(cardinality(state), 0);
  skip int := 0;
  free_units float8;
  newest float8 := 0;
BEGIN
  IF op = 'r' THEN
    IF n = 0 THEN
      RETURN (NULL, NULL, NULL, NULL, NULL, NULL, 0, false)::${R};
    END IF;
    n := n - least(whole, lim)::int;
    IF n <= 0 THEN
      RETURN (NULL, NULL, NULL, NULL, NULL, '{}'::float8[], 0, true)::${R};
    END IF;
    RETURN (NULL, NULL, NULL, NULL, NULL, state[1:n], state[n] - now_ms, true)::${R};
  END IF;
  IF n > lim THEN skip := n - lim::int; END IF;
  WHILE skip < n AND state[skip + 1] <= now_ms LOOP
    skip := skip + 1;
  END LOOP;
  IF op = 's' THEN
    -- A charge (a settled cost): min(cost, limit) entries at now after the live ones, the newest \`limit\` kept
    -- (as the TypeScript writes them over its ring's oldest).
    state := coalesce(state[skip + 1:n], '{}'::float8[]) || array_fill(now_ms + w, ARRAY[least(whole, lim)::int]);
    n := cardinality(state);
    IF n > lim THEN state := state[n - lim::int + 1:n]; END IF;
    RETURN (NULL, NULL, NULL, NULL, NULL, state, w, true)::${R};
  END IF;
  free_units := lim - (n - skip);
  IF n > 0 THEN newest := state[n]; END IF;
  IF whole <= free_units THEN
    IF op = 'c' THEN
      RETURN (true, free_units - whole, w, 0, 0,
        state[skip + 1:n] || array_fill(now_ms + w, ARRAY[whole::int]), w, true)::${R};
    END IF;
    RETURN (true, free_units, CASE WHEN newest > now_ms THEN newest - now_ms ELSE 0 END, 0, 0, NULL, 0, false)::${R};
  END IF;
  -- The cost-th oldest entry must expire first; a cost above the limit never passes (the log holds \`limit\`).
  RETURN (false, free_units, CASE WHEN n - skip > 0 THEN newest - now_ms ELSE 0 END,
    CASE WHEN whole <= lim THEN state[skip + (whole - free_units)::int] - now_ms ELSE 'Infinity'::float8 END,
    0, NULL, 0, false)::${R};
END`,
}
