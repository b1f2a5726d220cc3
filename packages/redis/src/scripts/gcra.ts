import { type AlgorithmLua, keep, reply } from './lua.js'

/** Lua: core's `ceilMs` of the variable `ms` (`1e-3` is core's `EPSILON`, in ms). */
const ceilMs = (ms: string) => `(${ms} <= 1e-3 and 0 or ceil(${ms} - 1e-3))`
/** Lua: core's `floorUnits` of the variable `units`. */
const floorUnits = (units: string) => `(${units} <= 0 and 0 or floor(${units} + 1e-3))`

/**
 * GCRA, as `@floodgate/core`'s `gcra`: state `tat` (one double), the theoretical arrival time.
 * Params: emissionMs, toleranceMs, burst.
 */
export const GCRA: AlgorithmLua = {
  name: 'gcra',
  locals: ['op', 'now', 'cost', 'grace', 'emission', 'tolerance', 'burst'],
  body: `
local raw = redis.call('GET', key)
local stored = 0
if raw then stored = decode('<d', raw) end
if op == 'r' then
  if raw then
    local tat = max(now, stored - cost * emission)
    ${keep("encode('<d', tat)", 'tat - now')}
  end
  return false
end
local tat = max(stored, now)
local nxt = tat + cost * emission
if nxt - now <= tolerance + 1e-3 then
  local ahead = tat - now
  if op == 'c' then
    ahead = nxt - now
    ${keep("encode('<d', nxt)", 'ahead')}
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
