/**
 * The decision of a counter per aligned period, which the fixed window and the calendar quota share (as
 * their TypeScript does): state `{periodStart, count}`, given the current period's start and the ms until the
 * next one in the variables `start` and `until_next` (and a float8 variable `used`, 0). A refund gives units
 * back only within the same period; a charge (`'s'`) adds to the current period's count, past the limit if
 * need be; a cost above the limit never passes (no period holds it).
 */
export const periodCounterBody = (R: string) => `
  IF op = 'r' THEN
    IF state[1] = start THEN
      used := greatest(0, state[2] - cost);
      RETURN (NULL, NULL, NULL, NULL, NULL, ARRAY[start, used],
        CASE WHEN used > 0 THEN until_next ELSE 0 END, true)::${R};
    END IF;
    RETURN (NULL, NULL, NULL, NULL, NULL, NULL, 0, false)::${R};
  END IF;
  IF state[1] = start THEN used := state[2]; END IF;
  IF op = 's' THEN
    -- A charge (a settled cost): the current period's count, past the limit if need be.
    used := used + cost;
    RETURN (NULL, NULL, NULL, NULL, NULL, ARRAY[start, used], until_next, true)::${R};
  END IF;
  IF used + cost <= lim THEN
    IF op = 'c' THEN
      used := used + cost;
      RETURN (true, floor(lim - used), until_next, 0, 0, ARRAY[start, used], until_next, true)::${R};
    END IF;
    RETURN (true, floor(lim - used), CASE WHEN used > 0 THEN until_next ELSE 0 END, 0, 0, NULL, 0, false)::${R};
  END IF;
  RETURN (false, greatest(0, floor(lim - used)), CASE WHEN used > 0 THEN until_next ELSE 0 END,
    CASE WHEN cost > lim THEN 'Infinity'::float8 ELSE until_next END, 0, NULL, 0, false)::${R};`
