/**
 * Calendar quota, as `@floodgate/core`'s `calendarQuota`: state `periodStart count` (two doubles), the period
 * found by the same integer arithmetic on days since 1970-01-01 (proleptic Gregorian; ISO weeks from
 * Monday), at a fixed offset from UTC. Params: limit, period (0 day, 1 week, 2 month), offsetMs.
 */
export const CALENDAR_QUOTA = `
local DAY = 86400000
local function days_from_civil(y, m, d)
  if m <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = m + 9
  if m > 2 then mp = m - 3 end
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
end
local function civil_year_month(days)
  local z = days + 719468
  local era = math.floor(z / 146097)
  local doe = z - era * 146097
  local yoe = math.floor((doe - math.floor(doe / 1460) + math.floor(doe / 36524) - math.floor(doe / 146096)) / 365)
  local doy = doe - (365 * yoe + math.floor(yoe / 4) - math.floor(yoe / 100))
  local mp = math.floor((5 * doy + 2) / 153)
  local m = mp - 9
  if mp < 10 then m = mp + 3 end
  local y = yoe + era * 400
  if m <= 2 then y = y + 1 end
  return y, m
end
local function period_of(now, period, offset)
  local days = math.floor((now + offset) / DAY)
  local first, nxt
  if period == 0 then
    first = days
    nxt = days + 1
  elseif period == 1 then
    first = days - ((days + 3) % 7)
    nxt = first + 7
  else
    local y, m = civil_year_month(days)
    first = days_from_civil(y, m, 1)
    if m == 12 then nxt = days_from_civil(y + 1, 1, 1) else nxt = days_from_civil(y, m + 1, 1) end
  end
  return first * DAY - offset, nxt * DAY - offset
end
local function calendar_quota(key, op, now, cost, grace, limit, period, offset)
  local raw = redis.call('GET', key)
  local stored, stored_count = 0, 0
  if raw then
    stored, stored_count = decode('<dd', raw)
  end
  local start, finish = period_of(now, period, offset)
  if op == 'r' then
    if raw and stored == start then
      local left = math.max(0, stored_count - cost)
      local expires_in = 0
      if left > 0 then expires_in = finish - now end
      keep(key, encode('<dd', start, left), expires_in, grace)
    end
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
        redis.call('SET', key, encode('<dd', start, used), 'KEEPTTL')
      else
        keep(key, encode('<dd', start, used), until_next, grace)
      end
    end
    local reset = 0
    if used > 0 then reset = until_next end
    return reply(1, math.floor(limit - used), reset, 0, 0)
  end
  local reset = 0
  if count > 0 then reset = until_next end
  local retry = until_next
  if cost > limit then retry = math.huge end
  return reply(0, math.floor(limit - count), reset, retry, 0)
end
`
