import { type AlgorithmLua, keep, reply, rewrite } from './lua.js'

/**
 * Sliding window counter, as `@floodgate/core`'s `slidingWindowCounter`: state
 * `windowStart current previous` (three doubles), the arithmetic in count x ms in the same order as the TypeScript.
 * The key expires when the state would be fresh: `windowStart + 2w` with a current count, `+ w` with only a
 * previous one. Params: limit, windowMs.
 */
export const SLIDING_WINDOW_COUNTER: AlgorithmLua = {
  name: 'sliding_window_counter',
  locals: ['op', 'now', 'cost', 'grace', 'limit', 'w'],
  body: `
local raw = redis.call('GET', key)
local stored, s1, s2 = 0, 0, 0
if raw then
  stored, s1, s2 = decode('<ddd', raw)
end
local start = floor(now / w) * w
if op == 'r' then
  if raw and stored == start then
    s1 = max(0, s1 - cost)
    local expires = 0
    if s1 > 0 then expires = stored + 2 * w elseif s2 > 0 then expires = stored + w end
    ${keep("encode('<ddd', stored, s1, s2)", 'expires - now')}
  end
  return false
end
if op == 's' then
  -- A charge (a settled cost): into the current window, past the limit if need be.
  local curr, prev = 0, 0
  if stored == start then
    curr, prev = s1, s2
  elseif stored == start - w then
    prev = s1
  end
  curr = curr + cost
  ${keep("encode('<ddd', start, curr, prev)", 'start + 2 * w - now')}
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
      ${rewrite("encode('<ddd', start, curr, prev)")}
    else
      curr = curr + cost
      local expires = 0
      if curr > 0 then expires = start + 2 * w elseif prev > 0 then expires = start + w end
      ${keep("encode('<ddd', start, curr, prev)", 'expires - now')}
    end
  end
  local remaining = floor((limit * w - curr * w - prev_weighted) / w)
  local reset = 0
  if curr > 0 then reset = until_next + w elseif prev > 0 then reset = until_next end
  ${reply(1, 'max(0, remaining)', 'reset', '0', '0')}
end
local retry
if cost > limit then
  retry = math.huge
elseif curr + cost <= limit then
  retry = ceil((prev_weighted - (limit - cost - curr) * w) / prev)
else
  retry = until_next + ceil((w * (curr + cost - limit)) / curr)
end
local remaining = floor((limit * w - curr * w - prev_weighted) / w)
local reset = until_next
if curr > 0 then reset = until_next + w end
${reply(0, 'max(0, remaining)', 'reset', 'retry', '0')}
`,
}
