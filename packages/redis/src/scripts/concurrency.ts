import { CONCURRENCY_RETRY_MS } from '@floodgate/core/internal'
import { type AlgorithmLua, LIBRARIES_LUA, reply } from './lua.js'
import { defineScript, type Script } from './script.js'

/**
 * Concurrency, as `@floodgate/core`'s `concurrency`: a sorted set of the held units, one member per unit
 * (`<lease>:<k>` for the k-th unit of a lease, scored by its expiry, `now + lease`), and the member `#`,
 * scored by minus the last lease number given out. A unit is held while its expiry is after now; expired units
 * are dropped when a request is admitted.
 *
 * Lease numbers are the greater of the last one + 1 and the Redis server's `TIME` in µs (read even when the
 * limiter passes a time): unique per key while the key lives (the counter), and after it expired and came
 * back (`lease` ms of time have passed, more than the numbers a key can take in that time), so a late
 * release never matches another request's units. A refund gives nothing back; `RELEASE` removes one lease's
 * members, once. Costs are whole units: a fractional cost is rounded up. Params: limit, leaseMs.
 *
 * An admission answers with its lease ({@link leaseReply}).
 */
export const CONCURRENCY: AlgorithmLua = {
  name: 'concurrency',
  locals: ['op', 'now', 'raw_cost', 'grace', 'limit', 'lease_ms'],
  body: `
if op == 'r' then return false end
local cost = ceil(raw_cost)
local now_text = string.format('%.17g', now)
local free = limit - redis.call('ZCOUNT', key, '(' .. now_text, '+inf')
if cost <= free and op == 'c' then
  redis.call('ZREMRANGEBYSCORE', key, '0', now_text)
  local t = redis.call('TIME')
  local id = t[1] * 1000000 + t[2]
  local last = redis.call('ZSCORE', key, '#')
  if last and 1 - tonumber(last) > id then id = 1 - tonumber(last) end
  local expiry = string.format('%.17g', now + lease_ms)
  redis.call('ZADD', key, string.format('%.17g', -id), '#')
  local k = 0
  while k < cost do
    local members = { 'ZADD', key }
    for j = 1, math.min(cost - k, 500) do
      k = k + 1
      members[#members + 1] = expiry
      members[#members + 1] = string.format('%d:%d', id, k)
    end
    redis.call(unpack(members))
  end
  redis.call('PEXPIRE', key, string.format('%d', ceil(lease_ms) + grace))
  ${leaseReply('free - cost', 'lease_ms', 'id', 'cost')}
end
local reset = 0
local newest = redis.call('ZRANGE', key, '-1', '-1', 'WITHSCORES')
if newest[2] and tonumber(newest[2]) > now then reset = tonumber(newest[2]) - now end
if cost <= free then
  ${reply(1, 'free', 'reset', '0', '0')}
end
local retry = math.huge
if cost <= limit then
  local at = redis.call('ZRANGEBYSCORE', key, '(' .. now_text, '+inf', 'WITHSCORES', 'LIMIT', string.format('%d', cost - free - 1), '1')
  retry = math.min(${CONCURRENCY_RETRY_MS}, tonumber(at[2]) - now)
end
${reply(0, 'free', 'reset', 'retry', '0')}
`,
}

/**
 * Lua: return an admission that holds a lease: little-endian doubles `remaining resetMs lease units` (32 bytes),
 * or text `1 remaining resetMs 0 0 lease units`. Must end a block, like a `return`.
 */
function leaseReply(remaining: string, resetMs: string, lease: string, units: string): string {
  const fields = `${remaining}, ${resetMs}, ${lease}, ${units}`
  return `if text then return string.format('1 %.17g %.17g 0 0 %d %d', ${fields}) end return encode('<dddd', ${fields})`
}

/**
 * Give back one lease's units: `KEYS[1]` the sorted set, `ARGV[1]` the lease as `<lease>:<units>` (digits).
 * Removes exactly those members, if still there: a lease released twice, or after its units expired (and
 * were dropped), frees nothing, and its number is no other lease's.
 */
export const RELEASE: Script = defineScript(
  'release',
  `${LIBRARIES_LUA}local id, units = string.match(ARGV[1], '^(%d+):(%d+)$')
if not id then return false end
units = tonumber(units)
local k = 0
while k < units do
  local members = { 'ZREM', KEYS[1] }
  for j = 1, math.min(units - k, 1000) do
    k = k + 1
    members[#members + 1] = id .. ':' .. k
  end
  redis.call(unpack(members))
end
return false
`,
)
