/**
 * The meter both buckets share, as `@floodgate/core`'s `bucket.ts`: state `level lastUpdate` (two doubles), the level
 * scaled by the interval (units x ms), draining `rate` scaled units per ms.
 * Params: capacity, rate, intervalMs, shape (1: leaky bucket in shaping mode).
 */
export const BUCKET = `
local function bucket(key, op, now, cost, grace, capacity, rate, interval, shape)
  local raw = redis.call('GET', key)
  local stored, last = 0, 0
  if raw then
    stored, last = decode('<dd', raw)
  end
  local level = 0
  if stored > 0 then
    local elapsed = now - last
    if elapsed > 0 then level = math.max(0, stored - elapsed * rate) else level = stored end
  end
  if op == 'r' then
    if raw then
      local left = math.max(0, level - cost * interval)
      keep(key, encode('<dd', left, now), left / rate, grace)
    end
    return false
  end
  local full = capacity * interval
  local nxt = level + cost * interval
  if nxt <= full then
    local after = level
    if op == 'c' then
      after = nxt
      keep(key, encode('<dd', nxt, now), nxt / rate, grace)
    end
    local delay = 0
    if shape == 1 then delay = math.ceil(level / rate) end
    return reply(1, math.floor((full - after) / interval), math.ceil(after / rate), 0, delay)
  end
  local retry
  if cost > capacity then retry = math.huge else retry = math.ceil((nxt - full) / rate) end
  return reply(0, math.floor((full - level) / interval), math.ceil(level / rate), retry, 0)
end
`
