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
 * The entry of the several-keys script: reads the ARGV `consumeAllArgs` builds, peeks every item, and
 * consumes them all only when all would pass; replies with every item's decision in one string (the format is
 * `wire.ts`'s: one reply for the client to read, not an array of them). `decide` holds each kind's function,
 * by its index.
 */
export const CONSUME_ALL_ENTRY_LUA = `
local binary = #ARGV == 1
text = not binary
local now, grace
if binary then
  now, grace = decode('<dd', ARGV[1])
else
  now, grace = tonumber(ARGV[1]), tonumber(ARGV[2])
end
${SERVER_CLOCK_LUA}
local format = '<${'d'.repeat(2 + PARAM_SLOTS)}'
local out = {}
local all = true
for pass = 1, 2 do
  local op = 'p'
  if pass == 2 then op = 'c' end
  local at = 17
  for i = 1, #KEYS do
    local kind, cost, a, b, c, d
    if binary then
      kind, cost, a, b, c, d, at = decode(format, ARGV[1], at)
    else
      local first = 3 + (i - 1) * ${2 + PARAM_SLOTS}
      kind, cost = tonumber(ARGV[first]), tonumber(ARGV[first + 1])
      a, b, c, d = tonumber(ARGV[first + 2]), tonumber(ARGV[first + 3]), tonumber(ARGV[first + 4]), tonumber(ARGV[first + 5])
    end
    local decision = decide[kind](KEYS[i], op, now, cost, grace, a, b, c, d)
    out[i] = decision
    if text then
      if string.byte(decision, 1) ~= 49 then all = false end
    elseif #decision ~= 16 and decode('<d', decision) ~= 1 then
      all = false
    end
  end
  if not all then break end
end
if text then return table.concat(out, ',') end
local sizes = {}
for i = 1, #out do sizes[i] = string.char(#out[i]) end
return table.concat(sizes) .. table.concat(out)
`
