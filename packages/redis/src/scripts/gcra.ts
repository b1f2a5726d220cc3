/**
 * GCRA, as `@floodgate/core`'s `gcra`: state `tat` (one double), the theoretical arrival time. `EPS` is core's
 * `EPSILON` (1e-3 ms) and `ceil_ms` / `floor_units` are its `ceilMs` / `floorUnits`.
 * Params: emissionMs, toleranceMs, burst.
 */
export const GCRA = `
local EPS = 1e-3
local function ceil_ms(ms)
  if ms <= EPS then return 0 end
  return math.ceil(ms - EPS)
end
local function floor_units(units)
  if units <= 0 then return 0 end
  return math.floor(units + EPS)
end
local function gcra(key, op, now, cost, grace, emission, tolerance, burst)
  local raw = redis.call('GET', key)
  local stored = 0
  if raw then stored = decode('<d', raw) end
  if op == 'r' then
    if raw then
      local tat = math.max(now, stored - cost * emission)
      keep(key, encode('<d', tat), tat - now, grace)
    end
    return false
  end
  local tat = math.max(stored, now)
  local nxt = tat + cost * emission
  if nxt - now <= tolerance + EPS then
    local ahead = tat - now
    if op == 'c' then
      ahead = nxt - now
      keep(key, encode('<d', nxt), ahead, grace)
    end
    return reply(1, floor_units((tolerance - ahead) / emission), ceil_ms(ahead), 0, 0)
  end
  local ahead = tat - now
  local retry
  if cost > burst then retry = math.huge else retry = ceil_ms(nxt - now - tolerance) end
  return reply(0, floor_units((tolerance - ahead) / emission), ceil_ms(ahead), retry, 0)
end
`
