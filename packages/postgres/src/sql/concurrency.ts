import { CONCURRENCY_RETRY_MS } from '@floodgate/core/internal'
import type { Step } from './step-signature.js'

/**
 * Concurrency, as `@floodgate/core`'s `concurrency` and the Redis script: state `[last lease, keep until, then
 * a (lease, expiry) pair per held unit]`. A unit is held while its expiry (`now + lease` when taken) is after
 * now; expired units are dropped when the state is written. Lease numbers are the greater of the last + 1 and
 * the database's clock in µs (`db_clock_ms`, the fourth slot, which the callers fill with the database's clock
 * whatever the limiter passes): unique while the row lives (kept `lease` past the last admission, a release
 * does not shorten it), and after it expired and came back. Operations: `'c'`, `'p'`, `'r'` (a refund gives
 * nothing back: units go back by lease), and `'l'`, release: `cost` is the lease number, whose units are
 * removed, once. An admission's lease number is its `next_state[1]`. Costs are whole units: a fractional cost
 * is rounded up. Parameters: limit, leaseMs.
 */
export const concurrencyStep: Step = {
  suffix: '_concurrency',
  params: ['lim', 'lease_ms', 'unused_3', 'db_clock_ms'],
  clock: true,
  body: (R) => `
DECLARE
  whole float8 := ceil(cost);
  n int := coalesce(cardinality(state), 0);
  last_id float8 := coalesce(state[1], 0);
  keep_until float8 := coalesce(state[2], 0);
  held float8[] := '{}';
  expiries float8[] := '{}';
  free_units float8;
  newest float8 := now_ms;
  id float8;
  j int := 3;
BEGIN
  IF op = 'r' THEN
    RETURN (NULL, NULL, NULL, NULL, NULL, NULL, 0, false)::${R};
  END IF;
  WHILE j < n LOOP
    IF state[j + 1] > now_ms AND NOT (op = 'l' AND state[j] = cost) THEN
      held := held || state[j:j + 1];
      expiries := expiries || state[j + 1];
      IF state[j + 1] > newest THEN newest := state[j + 1]; END IF;
    END IF;
    j := j + 2;
  END LOOP;
  IF op = 'l' THEN
    IF n = 0 THEN
      RETURN (NULL, NULL, NULL, NULL, NULL, NULL, 0, false)::${R};
    END IF;
    RETURN (NULL, NULL, NULL, NULL, NULL, ARRAY[last_id, keep_until] || held, keep_until - now_ms, true)::${R};
  END IF;
  free_units := lim - cardinality(expiries);
  IF whole <= free_units THEN
    IF op = 'c' THEN
      id := greatest(last_id + 1, floor(db_clock_ms * 1000));
      FOR u IN 1..whole::int LOOP
        held := held || ARRAY[id, now_ms + lease_ms];
      END LOOP;
      RETURN (true, free_units - whole, lease_ms, 0, 0,
        ARRAY[id, greatest(keep_until, now_ms + lease_ms)] || held,
        greatest(keep_until, now_ms + lease_ms) - now_ms, true)::${R};
    END IF;
    RETURN (true, free_units, newest - now_ms, 0, 0, NULL, 0, false)::${R};
  END IF;
  -- The (cost - free)-th earliest expiry frees enough units, at most ${CONCURRENCY_RETRY_MS} ms away (a running
  -- request may end any moment); a cost above the limit never passes.
  RETURN (false, free_units, newest - now_ms,
    CASE WHEN whole <= lim THEN least(${CONCURRENCY_RETRY_MS}::float8,
      (SELECT e FROM unnest(expiries) AS e ORDER BY e OFFSET (whole - free_units - 1)::int LIMIT 1) - now_ms)
    ELSE 'Infinity'::float8 END,
    0, NULL, 0, false)::${R};
END`,
}
