import { type AlgorithmLua, keepUntil, reply } from './lua.js'

/**
 * The meter both buckets share, as `@floodgate/core`'s `bucket.ts`: state `level lastUpdate expiresAt` (three
 * doubles; a state of two, from before the key's expiry was kept in it, reads as one with no expiry), the level
 * scaled by the interval (units x ms), draining `rate` scaled units per ms.
 * Params: capacity, rate, intervalMs, shape (1: leaky bucket in shaping mode).
 */
export const BUCKET: AlgorithmLua = {
  name: 'bucket',
  locals: ['op', 'now', 'cost', 'grace', 'capacity', 'rate', 'interval', 'shape'],
  body: `
local raw = redis.call('GET', key)
local stored, last, expires = 0, 0, nil
if raw then
  if #raw == 24 then stored, last, expires = decode('<ddd', raw) else stored, last = decode('<dd', raw) end
end
local level = 0
if stored > 0 then
  local elapsed = now - last
  if elapsed > 0 then
    -- max(0, stored - elapsed * rate), without a call
    level = stored - elapsed * rate
    if not (level > 0) then level = 0 end
  else
    level = stored
  end
end
if op == 'r' then
  if raw then
    local left = max(0, level - cost * interval)
    ${keepUntil('<dd', 'left, now', 'left / rate')}
  end
  return false
end
if op == 's' then
  -- A charge (a settled cost): the level may go above the capacity, a debt that drains at the rate.
  local nxt = level + cost * interval
  ${keepUntil('<dd', 'nxt, now', 'nxt / rate')}
  return false
end
local full = capacity * interval
local nxt = level + cost * interval
if nxt <= full then
  local after, reset = level, nil
  if op == 'c' then
    -- The reply's resetMs is the whole ms the state needs to become fresh: the expiry is kept from it.
    after, reset = nxt, ceil(nxt / rate)
    ${keepUntil('<dd', 'nxt, now', 'reset', true)}
  else
    reset = ceil(level / rate)
  end
  if shape == 1 and level > 0 then
    -- Shaping, with units ahead of this request: it waits for them to drain.
    ${reply(1, 'floor((full - after) / interval)', 'reset', '0', 'ceil(level / rate)')}
  end
  ${reply(1, 'floor((full - after) / interval)', 'reset', '0', '0')}
end
local retry
if cost > capacity then retry = math.huge else retry = ceil((nxt - full) / rate) end
${reply(0, 'max(0, floor((full - level) / interval))', 'ceil(level / rate)', 'retry', '0')}
`,
}
