import { type AlgorithmLua, reply } from './lua.js'

/**
 * Sliding window log, as `@floodgate/core`'s `slidingWindowLog`: a list of the expiry times (doubles)
 * (`admittedAt + window`) of admitted units, oldest first. The TypeScript keeps a ring of `limit` slots where
 * zeros and past times are free; the list holds the same entries minus (some of) the free ones, so
 * `free = limit - live`, the newest entry is the list's last, and the ring's `i`-th oldest entry is found
 * at `skip + i - free`. Expired entries are dropped when a request is admitted; a refund pops the newest
 * entries (the ring zeroes them). Costs are whole entries: a fractional cost is rounded up.
 * Params: limit, windowMs.
 */
export const SLIDING_WINDOW_LOG: AlgorithmLua = {
  name: 'sliding_window_log',
  locals: ['op', 'now', 'raw_cost', 'grace', 'limit', 'w'],
  body: `
local cost = ceil(raw_cost)
if op == 'r' then
  redis.call('RPOP', key, string.format('%d', math.min(cost, limit)))
  return false
end
local n = redis.call('LLEN', key)
if op == 's' then
  -- A charge (a settled cost): min(cost, limit) entries at now after the live ones, the list kept to the
  -- newest \`limit\` (as the TypeScript writes them over its ring's oldest).
  local skip = 0
  if n > limit then skip = n - limit end
  while skip < n and decode('<d', redis.call('LINDEX', key, string.format('%d', skip))) <= now do skip = skip + 1 end
  if skip > 0 then redis.call('LPOP', key, string.format('%d', skip)) end
  local entry = encode('<d', now + w)
  local left = math.min(cost, limit)
  while left > 0 do
    local batch = {}
    for i = 1, math.min(left, 1000) do batch[i] = entry end
    redis.call('RPUSH', key, unpack(batch))
    left = left - #batch
  end
  redis.call('LTRIM', key, string.format('%d', -limit), '-1')
  redis.call('PEXPIRE', key, string.format('%d', ceil(w) + grace))
  return false
end
local skip = 0
if n > limit then skip = n - limit end
while skip < n and decode('<d', redis.call('LINDEX', key, string.format('%d', skip))) <= now do skip = skip + 1 end
local free = limit - (n - skip)
if cost <= free then
  if op == 'c' then
    if skip > 0 then redis.call('LPOP', key, string.format('%d', skip)) end
    local entry = encode('<d', now + w)
    if cost == 1 then
      redis.call('RPUSH', key, entry)
    else
      local batch = {}
      for i = 1, math.min(cost, 1000) do batch[i] = entry end
      local left = cost
      while left > 0 do
        local take = math.min(left, 1000)
        if take < #batch then
          for i = take + 1, #batch do batch[i] = nil end
        end
        redis.call('RPUSH', key, unpack(batch))
        left = left - take
      end
    end
    redis.call('PEXPIRE', key, string.format('%d', ceil(w) + grace))
    ${reply(1, 'free - cost', 'w', '0', '0')}
  end
  local newest = 0
  if n > 0 then newest = decode('<d', redis.call('LINDEX', key, '-1')) end
  local reset = 0
  if newest > now then reset = newest - now end
  ${reply(1, 'free', 'reset', '0', '0')}
end
local retry = math.huge
if cost <= limit then
  retry = decode('<d', redis.call('LINDEX', key, string.format('%d', skip + cost - 1 - free))) - now
end
local reset = 0
if n - skip > 0 then reset = decode('<d', redis.call('LINDEX', key, '-1')) - now end
${reply(0, 'free', 'reset', 'retry', '0')}
`,
}
