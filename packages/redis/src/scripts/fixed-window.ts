import { type AlgorithmLua, keep, reply, rewrite } from './lua.js'

/**
 * Fixed window, as `@floodgate/core`'s `fixedWindow`: state `windowStart count` (two doubles).
 * Params: limit, windowMs.
 */
export const FIXED_WINDOW: AlgorithmLua = {
  name: 'fixed_window',
  locals: ['op', 'now', 'cost', 'grace', 'limit', 'w'],
  body: `
local raw = redis.call('GET', key)
local stored, stored_count = 0, 0
if raw then
  stored, stored_count = decode('<dd', raw)
end
local start = floor(now / w) * w
if op == 'r' then
  if raw and stored == start then
    local left = max(0, stored_count - cost)
    local expires_in = 0
    if left > 0 then expires_in = start + w - now end
    ${keep("encode('<dd', start, left)", 'expires_in')}
  end
  return false
end
if op == 's' then
  -- A charge (a settled cost): the current window's count, past the limit if need be.
  local count = cost
  if raw and stored == start then count = stored_count + cost end
  ${keep("encode('<dd', start, count)", 'start + w - now')}
  return false
end
local count = 0
if stored == start then count = stored_count end
local until_next = start + w - now
if count + cost <= limit then
  local used = count
  if op == 'c' then
    used = count + cost
    if count > 0 then
      -- Same window: the key already expires at its end (+ grace).
      ${rewrite("encode('<dd', start, used)")}
    else
      ${keep("encode('<dd', start, used)", 'until_next')}
    end
  end
  local reset = 0
  if used > 0 then reset = until_next end
  ${reply(1, 'floor(limit - used)', 'reset', '0', '0')}
end
local reset = 0
if count > 0 then reset = until_next end
local retry = until_next
if cost > limit then retry = math.huge end
${reply(0, 'max(0, floor(limit - count))', 'reset', 'retry', '0')}
`,
}
