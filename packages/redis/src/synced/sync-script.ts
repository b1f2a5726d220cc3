import { defineScript, PRELUDE, type Script } from '../scripts/script.js'

/**
 * The sync script (its wire format: `sync-wire.ts`). One call carries keys of one Cluster slot and one algorithm.
 *
 * `KEYS` are RedisStore state keys (`store.keyOf(algorithm, key)`). `ARGV`: the reply format (`b` binary, `t`
 * text), now (empty: the Redis server's clock), the expiry grace in ms, the algorithm's kind (`fw`, `swc`), its
 * window in ms, the starts of the previous and of the current window, then the units to add, in one string: two
 * numbers per key, in the order of `KEYS`, separated by spaces, the current window's then the previous one's
 * (one argument, not one per key: a client spends less on one long argument than on hundreds of short ones). Each
 * is added to the key's state exactly as
 * `WindowKind.merge` adds it in TypeScript (the previous window first) and written back in the RedisStore's own
 * format (little-endian doubles, `SET ... PX` to the moment it becomes fresh plus the grace), so the RedisStore's
 * scripts decide on the same totals.
 *
 * Reply: the clock the script used, as text; then, binary, every key's state after the merge in one string
 * (all zeros for a key that holds nothing); text, each key's state as `%.17g` numbers (empty: nothing).
 */
export const SYNC: Script = defineScript(
  'synced_sync',
  `${PRELUDE}
local text = ARGV[1] == 't'
local now = clock(ARGV[2])
local grace = tonumber(ARGV[3])
local kind, w = ARGV[4], tonumber(ARGV[5])
local previous, current = tonumber(ARGV[6]), tonumber(ARGV[7])
local units = {}
for field in string.gmatch(ARGV[8], '%S+') do
  local amount = tonumber(field)
  if not amount then return redis.error_reply('ERR sync: a unit count that is not a number: ' .. field) end
  units[#units + 1] = amount
end
if #units ~= 2 * #KEYS then
  return redis.error_reply('ERR sync: ' .. #units .. ' unit counts for ' .. #KEYS .. ' keys (two per key)')
end
local function merge_fw(key, deltas)
  local raw = redis.call('GET', key)
  local start, count = 0, 0
  if raw then start, count = decode('<dd', raw) end
  local changed = false
  for i = 1, #deltas, 2 do
    local s, amount = deltas[i], deltas[i + 1]
    if amount ~= 0 then
      if s == start then
        count = math.max(0, count + amount)
        changed = true
      elseif s > start and amount > 0 then
        start, count, changed = s, amount, true
      end
    end
  end
  if count <= 0 then
    if changed then redis.call('DEL', key) end
    if text then return '' end
    return encode('<dd', 0, 0)
  end
  local value = encode('<dd', start, count)
  if changed then keep(key, value, start + w - now, grace) end
  if text then return string.format('%.17g %.17g', start, count) end
  return value
end
local function merge_swc(key, deltas)
  local raw = redis.call('GET', key)
  local start, curr, prev = 0, 0, 0
  if raw then start, curr, prev = decode('<ddd', raw) end
  local changed = false
  for i = 1, #deltas, 2 do
    local s, amount = deltas[i], deltas[i + 1]
    if amount ~= 0 then
      if s == start then
        curr = math.max(0, curr + amount)
        changed = true
      elseif s == start - w then
        prev = math.max(0, prev + amount)
        changed = true
      elseif s > start and amount > 0 then
        if s == start + w then prev = curr else prev = 0 end
        start, curr, changed = s, amount, true
      end
    end
  end
  local expires = 0
  if curr > 0 then expires = start + 2 * w elseif prev > 0 then expires = start + w end
  if expires == 0 then
    if changed then redis.call('DEL', key) end
    if text then return '' end
    return encode('<ddd', 0, 0, 0)
  end
  local value = encode('<ddd', start, curr, prev)
  if changed then keep(key, value, expires - now, grace) end
  if text then return string.format('%.17g %.17g %.17g', start, curr, prev) end
  return value
end
local merge = merge_swc
if kind == 'fw' then merge = merge_fw end
local states = {}
for i = 1, #KEYS do
  states[i] = merge(KEYS[i], { previous, units[2 * i], current, units[2 * i - 1] })
end
local clock_text = string.format('%.17g', now)
if text then
  table.insert(states, 1, clock_text)
  return states
end
return { clock_text, table.concat(states) }
`,
)

/**
 * Presence: `KEYS[1]` is a sorted set of the processes syncing under one prefix, scored by the Redis server's
 * clock. `ARGV`: `join` or `leave`, the process's id, the horizon in ms (members not seen for that long are
 * dropped). Replies with how many processes remain.
 */
export const FLEET: Script = defineScript(
  'synced_fleet',
  `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local horizon = tonumber(ARGV[3])
if ARGV[1] == 'leave' then
  redis.call('ZREM', KEYS[1], ARGV[2])
else
  redis.call('ZADD', KEYS[1], now, ARGV[2])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - horizon)
redis.call('PEXPIRE', KEYS[1], math.ceil(horizon))
return redis.call('ZCARD', KEYS[1])
`,
)

/** Every script of the SyncedStore, for the test that checks their SHA1 against `SCRIPT LOAD`. */
export const SYNCED_SCRIPTS: readonly Script[] = [SYNC, FLEET]
