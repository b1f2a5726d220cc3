import { PARAM_SLOTS } from '../wire.js'
import type { AlgorithmLua } from './lua.js'
import { SERVER_CLOCK_LUA } from './lua.js'

/**
 * The scripts' end of the wire format (the store's end, and the format itself: `wire.ts`): the code that
 * reads the arguments into the locals an algorithm's code reads.
 */

/**
 * The entry of a one-key script: `KEYS[1]` and the ARGV `singleArgs` builds (one binary argument, or text)
 * into `key`, `text` and the algorithm's locals; then the clock.
 */
export function singleEntryLua(algorithm: AlgorithmLua): string {
  const names = algorithm.locals.join(', ')
  const [op, ...numbers] = algorithm.locals
  const format = `<c1${'d'.repeat(numbers.length)}`
  const texts = numbers.map((_, i) => `tonumber(ARGV[${i + 2}])`).join(', ')
  return `
local key, text = KEYS[1], false
local ${names}
if #ARGV == 1 then
  ${names} = decode('${format}', ARGV[1])
else
  text = true
  ${op}, ${numbers.join(', ')} = ARGV[1], ${texts}
end
${SERVER_CLOCK_LUA}`
}

/**
 * Lua: the banned decision of an item, as a value (see `wire.ts`): seven doubles, the five of a
 * refusal (`0 0 ms ms 0`) then `bannedMs` and `bannedNow` (1 for the refusal that started the ban), 56 bytes;
 * or the seven as text.
 */
const BANNED_LUA = `
local function banned_reply(ms, started)
  if text then return string.format('0 0 %.17g %.17g 0 %.17g %d', ms, ms, ms, started) end
  return encode('<ddddddd', 0, 0, ms, ms, 0, ms, started)
end
`

/**
 * The entry of the several-keys script: reads the ARGV `consumeAllArgs` builds, a list of groups (one request's
 * items each, with its own time), and decides each group as one: every item of a group is peeked, and the
 * group's items are all consumed only when all would pass; a group of one item is consumed at once (a refused
 * consume changes nothing). One group's refusal changes nothing of another's; groups are decided in order,
 * each seeing what the ones before it took. The Redis server's clock is read once, for every group that asks
 * for it. Replies with every item's decision in one string (the format is `wire.ts`'s: one reply for the
 * client to read, not an array of them). `decide` holds each kind's function, by its index.
 *
 * An item with a ban (its kind's index negated, its rule after it, its ban's key after its state's; see
 * `wire.ts`) is checked first: a banned key refuses the group (its decision the ban's, the others peeked),
 * consuming and counting nothing. Else, when the group is refused, each ban item whose own decision refused
 * counts one refusal in its ban's key (`until count start`, doubles), and the `after`-th within `within` bans
 * the key until `now + for` (its decision then the ban's, started). The same steps as core's `stores/bans.ts`.
 */
export const CONSUME_ALL_ENTRY_LUA = `${BANNED_LUA}
local binary = #ARGV == 1
text = not binary
local grace, at, stop
if binary then
  grace, at = decode('<d', ARGV[1])
  stop = #ARGV[1]
else
  grace, at, stop = tonumber(ARGV[1]), 2, #ARGV
end
local server_now
local format = '<${'d'.repeat(2 + PARAM_SLOTS)}'
local out = {}
local first, kfirst = 1, 1
while at <= stop do
  local size, now
  if binary then
    size, now, at = decode('<dd', ARGV[1], at)
  else
    size, now, at = tonumber(ARGV[at]), tonumber(ARGV[at + 1]), at + 2
  end
  if not now or now ~= now then
    if not server_now then
      local t = redis.call('TIME')
      server_now = t[1] * 1000 + t[2] / 1000
    end
    now = server_now
  end
  local last = first + size - 1
  local op, passes = 'p', 2
  if size == 1 then op, passes = 'c', 1 end
  local bans, banned, next_at, next_k = false, false, at, kfirst
  for pass = 1, passes do
    if pass == 2 then op = 'c' end
    local all, item, k = true, at, kfirst
    for i = first, last do
      local kind, cost, a, b, c, d
      if binary then
        kind, cost, a, b, c, d, item = decode(format, ARGV[1], item)
      else
        kind, cost = tonumber(ARGV[item]), tonumber(ARGV[item + 1])
        a, b, c, d = tonumber(ARGV[item + 2]), tonumber(ARGV[item + 3]), tonumber(ARGV[item + 4]), tonumber(ARGV[item + 5])
        item = item + ${2 + PARAM_SLOTS}
      end
      local key, decision = KEYS[k], false
      k = k + 1
      if kind < 0 then
        kind = -kind
        local after, within, span
        if binary then
          after, within, span, item = decode('<ddd', ARGV[1], item)
        else
          after, within, span = tonumber(ARGV[item]), tonumber(ARGV[item + 1]), tonumber(ARGV[item + 2])
          item = item + 3
        end
        local ban_key = KEYS[k]
        k = k + 1
        if pass == 1 then
          local raw = redis.call('GET', ban_key)
          local till, count, start = 0, 0, 0
          if raw then till, count, start = decode('<ddd', raw) end
          if till > now then
            banned = true
            decision = banned_reply(till - now, 0)
          end
          if not bans then bans = {} end
          bans[#bans + 1] = { i, ban_key, after, within, span, till, count, start }
        end
      end
      if not decision then decision = decide[kind](key, op, now, cost, grace, a, b, c, d) end
      out[i] = decision
      if text then
        if string.byte(decision, 1) ~= 49 then all = false end
      elseif #decision ~= 16 and #decision ~= 32 and decode('<d', decision) ~= 1 then
        all = false
      end
    end
    next_at, next_k = item, k
    if not all then break end
  end
  if bans and not banned then
    for _, e in ipairs(bans) do
      local decision = out[e[1]]
      local refused
      if text then refused = string.byte(decision, 1) ~= 49 else refused = #decision ~= 16 and #decision ~= 32 and decode('<d', decision) ~= 1 end
      if refused then
        local till, count, start, within = e[6], e[7], e[8], e[4]
        if count == 0 or now - start >= within then
          count, start = 1, now
        else
          count = count + 1
        end
        if count >= e[3] then
          till, count, start = now + e[5], 0, 0
          out[e[1]] = banned_reply(e[5], 1)
        end
        local ttl = max(0, till - now)
        if count > 0 then ttl = max(ttl, start + within - now) end
        if ttl > 0 then
          redis.call('SET', e[2], encode('<ddd', till, count, start), 'PX', string.format('%d', ceil(ttl) + grace))
        else
          redis.call('DEL', e[2])
        end
      end
    end
  end
  at, kfirst = next_at, next_k
  first = last + 1
end
if text then return table.concat(out, ',') end
local sizes = {}
for i = 1, #out do sizes[i] = string.char(#out[i]) end
return table.concat(sizes) .. table.concat(out)
`
