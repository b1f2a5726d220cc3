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
 * Helpers for a script that calls them as functions (the SyncedStore's sync script; the algorithms' scripts
 * write the same steps inline, see `lua.ts`), in the RedisStore's state format.
 *
 * State is stored as little-endian IEEE doubles (`struct.encode('<d')`): exact, bit for bit (-0 and
 * fractions of a ms included), with no text formatting or parsing. State is written with `SET ... PX` (never
 * without a TTL), kept `grace` ms past the moment it becomes equal to a fresh state, and deleted when it
 * already is. Time is the limiter's when it passes one, else the Redis server's `TIME`.
 */
export const PRELUDE = `
local encode, decode = struct.pack, struct.unpack
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
