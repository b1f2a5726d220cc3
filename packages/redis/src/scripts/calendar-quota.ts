import { type AlgorithmLua, keep, reply, rewrite } from './lua.js'

/**
 * Calendar quota, as `@floodgate/core`'s `calendarQuota`: state `periodStart count` (two doubles), the period
 * found by the same integer arithmetic on days since 1970-01-01 (proleptic Gregorian; ISO weeks from
 * Monday), at a fixed offset from UTC. Params: limit, period (0 day, 1 week, 2 month), offsetMs.
 */
export const CALENDAR_QUOTA: AlgorithmLua = {
  name: 'calendar_quota',
  locals: ['op', 'now', 'cost', 'grace', 'limit', 'period', 'offset'],
  body: `
local raw = redis.call('GET', key)
local stored, stored_count = 0, 0
if raw then
  stored, stored_count = decode('<dd', raw)
end
local days = floor((now + offset) / 86400000)
local first, nxt
if period == 0 then
  first = days
  nxt = days + 1
elseif period == 1 then
  first = days - ((days + 3) % 7)
  nxt = first + 7
else
  local function days_from_civil(y, m, d)
    if m <= 2 then y = y - 1 end
    local era = floor(y / 400)
    local yoe = y - era * 400
    local mp = m + 9
    if m > 2 then mp = m - 3 end
    local doy = floor((153 * mp + 2) / 5) + d - 1
    local doe = yoe * 365 + floor(yoe / 4) - floor(yoe / 100) + doy
    return era * 146097 + doe - 719468
  end
  local z = days + 719468
  local era = floor(z / 146097)
  local doe = z - era * 146097
  local yoe = floor((doe - floor(doe / 1460) + floor(doe / 36524) - floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + floor(yoe / 4) - floor(yoe / 100))
  local mp = floor((5 * doy + 2) / 153)
  local m = mp - 9
  if mp < 10 then m = mp + 3 end
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  first = days_from_civil(y, m, 1)
  if m == 12 then nxt = days_from_civil(y + 1, 1, 1) else nxt = days_from_civil(y, m + 1, 1) end
end
local start, finish = first * 86400000 - offset, nxt * 86400000 - offset
if op == 'r' then
  if raw and stored == start then
    local left = max(0, stored_count - cost)
    local expires_in = 0
    if left > 0 then expires_in = finish - now end
    ${keep("encode('<dd', start, left)", 'expires_in')}
  end
  return false
end
if op == 's' then
  -- A charge (a settled cost): the current period's count, past the limit if need be.
  local count = cost
  if raw and stored == start then count = stored_count + cost end
  ${keep("encode('<dd', start, count)", 'finish - now')}
  return false
end
local count = 0
if stored == start then count = stored_count end
local until_next = finish - now
if count + cost <= limit then
  local used = count
  if op == 'c' then
    used = count + cost
    if count > 0 then
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
