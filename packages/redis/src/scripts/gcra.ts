import { type AlgorithmLua, keepUntil, reply } from './lua.js'

/** Lua: core's `ceilMs` of the variable `ms` (`1e-3` is core's `EPSILON`, in ms). */
const ceilMs = (ms: string) => `(${ms} <= 1e-3 and 0 or ceil(${ms} - 1e-3))`
/** Lua: core's `floorUnits` of the variable `units`. */
const floorUnits = (units: string) => `(${units} <= 0 and 0 or floor(${units} + 1e-3))`

/**
 * GCRA, as `@floodgate/core`'s `gcra`: state `tat expiresAt` (two doubles; a state of one, from before the key's
 * expiry was kept in it, reads as one with no expiry), `tat` the theoretical arrival time.
 * Params: emissionMs, toleranceMs, burst.
 */
export const GCRA: AlgorithmLua = {
  name: 'gcra',
  locals: ['op', 'now', 'cost', 'grace', 'emission', 'tolerance', 'burst'],
  body: `
local raw = redis.call('GET', key)
local stored, expires = 0, nil
if raw then
  if #raw == 16 then stored, expires = decode('<dd', raw) else stored = decode('<d', raw) end
end
if op == 'r' then
  if raw then
    local tat = max(now, stored - cost * emission)
    ${keepUntil('<d', 'tat', 'tat - now')}
  end
  return false
end
if op == 's' then
  -- A charge (a settled cost): the TAT may run past the tolerance, a debt the next requests wait out.
  local tat = max(stored, now) + cost * emission
  ${keepUntil('<d', 'tat', 'tat - now')}
  return false
end
-- max(stored, now), without a call
local tat = stored
if now > tat then tat = now end
local nxt = tat + cost * emission
if nxt - now <= tolerance + 1e-3 then
  local ahead = tat - now
  if op == 'c' then
    ahead = nxt - now
    ${keepUntil('<d', 'nxt', 'ahead')}
  end
  local units = (tolerance - ahead) / emission
  ${reply(1, floorUnits('units'), ceilMs('ahead'), '0', '0')}
end
local ahead = tat - now
local units = (tolerance - ahead) / emission
local retry
if cost > burst then
  retry = math.huge
else
  retry = nxt - now - tolerance
  retry = ${ceilMs('retry')}
end
${reply(0, floorUnits('units'), ceilMs('ahead'), 'retry', '0')}
`,
}
