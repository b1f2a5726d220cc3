import { createHash } from 'node:crypto'

/** A Lua script and its SHA1, the name EVALSHA calls it by. */
export interface Script {
  readonly name: string
  readonly source: string
  readonly sha: string
}

/** Make a {@link Script} from its source (the SHA1 is what `SCRIPT LOAD` answers; a test checks it). */
export function defineScript(name: string, source: string): Script {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') }
}

/**
 * Helpers every script starts with.
 *
 * State is stored as little-endian IEEE doubles (`struct.encode('<d')`): exact, bit for bit (-0 and
 * fractions of a ms included), with no text formatting or parsing. A decision is one reply,
 * `allowed remaining resetMs retryAfterMs delayMs`: five doubles in 40 bytes for clients that can take a
 * binary reply (ioredis's `evalshaBuffer`), else text in `%.17g`, which also round-trips every double (a
 * Lua number in a reply would be truncated to an integer). The op (`c` consume, `p` peek, `r` refund) in
 * upper case asks for text. State is written with `SET ... PX` (never without a TTL), kept `grace` ms past
 * the moment it becomes equal to a fresh state, and deleted when it already is.
 */
export const PRELUDE = `
local encode, decode = struct.pack, struct.unpack
local text = false
local function reply(allowed, remaining, resetMs, retryAfterMs, delayMs)
  if text then
    local f = '%.17g'
    return allowed .. ' ' .. string.format(f, remaining) .. ' ' .. string.format(f, resetMs) .. ' ' ..
      string.format(f, retryAfterMs) .. ' ' .. string.format(f, delayMs)
  end
  return encode('<ddddd', allowed, remaining, resetMs, retryAfterMs, delayMs)
end
local function keep(key, value, expiresIn, grace)
  if expiresIn > 0 then
    redis.call('SET', key, value, 'PX', math.ceil(expiresIn) + grace)
  else
    redis.call('DEL', key)
  end
end
local function clock(arg)
  local now = tonumber(arg)
  if now then return now end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
end
`

/**
 * The body of a one-key script. `KEYS[1]`: the state. `ARGV`: op (`c` consume, `p` peek, `r` refund; upper
 * case for a text reply), now (empty: the Redis server's clock), cost, grace ms, then the algorithm's
 * parameters.
 */
export const SINGLE_MAIN = `
local op = ARGV[1]
if op == 'C' or op == 'P' or op == 'R' then
  text = true
  op = string.lower(op)
end
return decide(KEYS[1], op, clock(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]),
  tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]))
`
