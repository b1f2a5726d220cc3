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
 * The entry of the several-keys script: reads the ARGV `consumeAllArgs` builds, a list of groups (one request's
 * items each, with its own time), and decides each group as one: every item of a group is peeked, and the
 * group's items are all consumed only when all would pass; a group of one item is consumed at once (a refused
 * consume changes nothing). One group's refusal changes nothing of another's; groups are decided in order,
 * each seeing what the ones before it took. The Redis server's clock is read once, for every group that asks
 * for it. Replies with every item's decision in one string (the format is `wire.ts`'s: one reply for the
 * client to read, not an array of them). `decide` holds each kind's function, by its index.
 */
export const CONSUME_ALL_ENTRY_LUA = `
local binary = #ARGV == 1
text = not binary
local grace, at, stride
if binary then
  grace, at = decode('<d', ARGV[1])
  stride = ${8 * (2 + PARAM_SLOTS)}
else
  grace, at, stride = tonumber(ARGV[1]), 2, ${2 + PARAM_SLOTS}
end
local server_now
local format = '<${'d'.repeat(2 + PARAM_SLOTS)}'
local out = {}
local first = 1
while first <= #KEYS do
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
  for pass = 1, passes do
    if pass == 2 then op = 'c' end
    local all, item = true, at
    for i = first, last do
      local kind, cost, a, b, c, d
      if binary then
        kind, cost, a, b, c, d, item = decode(format, ARGV[1], item)
      else
        kind, cost = tonumber(ARGV[item]), tonumber(ARGV[item + 1])
        a, b, c, d = tonumber(ARGV[item + 2]), tonumber(ARGV[item + 3]), tonumber(ARGV[item + 4]), tonumber(ARGV[item + 5])
        item = item + stride
      end
      local decision = decide[kind](KEYS[i], op, now, cost, grace, a, b, c, d)
      out[i] = decision
      if text then
        if string.byte(decision, 1) ~= 49 then all = false end
      elseif #decision ~= 16 and #decision ~= 32 and decode('<d', decision) ~= 1 then
        all = false
      end
    end
    if not all then break end
  end
  at = at + size * stride
  first = last + 1
end
if text then return table.concat(out, ',') end
local sizes = {}
for i = 1, #out do sizes[i] = string.char(#out[i]) end
return table.concat(sizes) .. table.concat(out)
`
