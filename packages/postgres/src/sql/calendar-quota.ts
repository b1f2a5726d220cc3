import { type Location, qualified } from './location.js'
import { periodCounterBody } from './period-counter.js'
import type { Step } from './step-signature.js'

/**
 * Days since 1970-01-01 of a civil date (month 1-12), as `@floodgate/core`'s `daysFromCivil`: the proleptic
 * Gregorian calendar by integer arithmetic (exact in float8 for every date a clock in ms holds).
 */
export const daysFromCivilSql = (
  location: Location,
) => `CREATE OR REPLACE FUNCTION ${qualified(location, '_days_from_civil')}(
  y float8, m float8, d float8
) RETURNS float8
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $civil$
DECLARE
  era float8;
  yoe float8;
  mp float8;
  doy float8;
BEGIN
  IF m <= 2 THEN y := y - 1; END IF;
  era := floor(y / 400);
  yoe := y - era * 400;
  IF m > 2 THEN mp := m - 3; ELSE mp := m + 9; END IF;
  doy := floor((153 * mp + 2) / 5) + d - 1;
  RETURN era * 146097 + (yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy) - 719468;
END
$civil$;
`

/**
 * Calendar quota, as `@floodgate/core`'s `calendarQuota` and the Redis script: state `{periodStart, count}`,
 * the period (a day, an ISO week from Monday, or a month) found by the same integer arithmetic on days since
 * 1970-01-01 at a fixed offset from UTC. Parameters: limit, period (0 day, 1 week, 2 month), offsetMs.
 */
export const calendarQuotaStep: Step = {
  suffix: '_calendar_quota',
  params: ['lim', 'period', 'offset_ms', 'unused_4'],
  body: (R, location) => {
    const civil = qualified(location, '_days_from_civil')
    return `
DECLARE
  day_ms CONSTANT float8 := 86400000;
  days float8 := floor((now_ms + offset_ms) / day_ms);
  first_day float8;
  next_day float8;
  z float8;
  era float8;
  doe float8;
  yoe float8;
  doy float8;
  mp float8;
  y float8;
  m float8;
  start float8;
  until_next float8;
  used float8 := 0;
BEGIN
  IF period = 0 THEN
    first_day := days;
    next_day := days + 1;
  ELSIF period = 1 THEN
    -- 1970-01-01 was a Thursday, 3 days after a Monday (a floored modulo, as the TypeScript's).
    first_day := days - (days + 3 - 7 * floor((days + 3) / 7));
    next_day := first_day + 7;
  ELSE
    z := days + 719468;
    era := floor(z / 146097);
    doe := z - era * 146097;
    yoe := floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365);
    doy := doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100));
    mp := floor((5 * doy + 2) / 153);
    IF mp < 10 THEN m := mp + 3; ELSE m := mp - 9; END IF;
    y := yoe + era * 400;
    IF m <= 2 THEN y := y + 1; END IF;
    first_day := ${civil}(y, m, 1);
    IF m = 12 THEN next_day := ${civil}(y + 1, 1, 1); ELSE next_day := ${civil}(y, m + 1, 1); END IF;
  END IF;
  start := first_day * day_ms - offset_ms;
  until_next := next_day * day_ms - offset_ms - now_ms;${periodCounterBody(R)}
END`
  },
}
