/**
 * Sliding window counter, as `@floodgate/core`'s `slidingWindowCounter`: state
 * `windowStart current previous` (three doubles), the arithmetic in count x ms in the same order as the TypeScript.
 * Params: limit, windowMs.
 */
export const SLIDING_WINDOW_COUNTER = `
local function swc_expires(start, curr, prev, w)
  if curr > 0 then return start + 2 * w end
  if prev > 0 then return start + w end
  return 0
end
local function sliding_window_counter(key, op, now, cost, grace, limit, w)
  local raw = redis.call('GET', key)
  local stored, s1, s2 = 0, 0, 0
  if raw then
    stored, s1, s2 = decode('<ddd', raw)
  end
  local start = math.floor(now / w) * w
  if op == 'r' then
    if raw and stored == start then
      s1 = math.max(0, s1 - cost)
      keep(key, encode('<ddd', stored, s1, s2), swc_expires(stored, s1, s2, w) - now, grace)
    end
    return false
  end
  local curr, prev = 0, 0
  if stored == start then
    curr, prev = s1, s2
  elseif stored == start - w then
    prev = s1
  end
  local elapsed = now - start
  local prev_weighted = prev * (w - elapsed)
  local until_next = start + w - now
  if (curr + cost) * w + prev_weighted <= limit * w then
    if op == 'c' then
      if curr > 0 then
        -- Same window and a current count: the key already expires at start + 2w (+ grace).
        curr = curr + cost
        redis.call('SET', key, encode('<ddd', start, curr, prev), 'KEEPTTL')
      else
        curr = curr + cost
        keep(key, encode('<ddd', start, curr, prev), swc_expires(start, curr, prev, w) - now, grace)
      end
    end
    local remaining = math.floor((limit * w - curr * w - prev_weighted) / w)
    local reset = 0
    if curr > 0 then reset = until_next + w elseif prev > 0 then reset = until_next end
    return reply(1, math.max(0, remaining), reset, 0, 0)
  end
  local retry
  if cost > limit then
    retry = math.huge
  elseif curr + cost <= limit then
    retry = math.ceil((prev_weighted - (limit - cost - curr) * w) / prev)
  else
    retry = until_next + math.ceil((w * (curr + cost - limit)) / curr)
  end
  local remaining = math.floor((limit * w - curr * w - prev_weighted) / w)
  local reset = until_next
  if curr > 0 then reset = until_next + w end
  return reply(0, math.max(0, remaining), reset, retry, 0)
end
`
