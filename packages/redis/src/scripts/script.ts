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
 * Numbers travel as text in `%.17g`, which round-trips every double exactly (Redis would truncate a Lua
 * number in a reply to an integer). A decision is one reply string: `allowed remaining resetMs retryAfterMs
 * delayMs`. State is written with `SET ... PX` (never without a TTL), kept `grace` ms past the moment it
 * becomes equal to a fresh state, and deleted when it already is.
 */
export const PRELUDE = `
local function num(x) return string.format('%.17g', x) end
local function reply(allowed, remaining, resetMs, retryAfterMs, delayMs)
  return allowed .. ' ' .. num(remaining) .. ' ' .. num(resetMs) .. ' ' .. num(retryAfterMs) .. ' ' .. num(delayMs)
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
 * The body of a one-key script. `KEYS[1]`: the state. `ARGV`: op (`c` consume, `p` peek, `r` refund), now
 * (empty: the Redis server's clock), cost, grace ms, then the algorithm's parameters.
 */
export const SINGLE_MAIN = `
return decide(KEYS[1], ARGV[1], clock(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]),
  tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]))
`
