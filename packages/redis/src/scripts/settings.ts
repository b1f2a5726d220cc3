import { defineScript } from './script.js'

/**
 * The settings documents (a limiter's runtime overrides): one hash per document, its fields as they are and
 * its version in the field `#version` (no setting's field starts with `#`), so one key holds both and a
 * Cluster keeps them on one slot. No TTL: settings stay until deleted.
 */

/** Read a document: `{version}` alone when ARGV[1] is its version already, else `{version, HGETALL}`. */
export const SETTINGS_READ = defineScript(
  'settings-read',
  `local v = redis.call('HGET', KEYS[1], '#version') or '0'
if v == ARGV[1] then return {v} end
return {v, redis.call('HGETALL', KEYS[1])}
`,
)

/** Set field ARGV[1] to ARGV[3] (ARGV[2] '1') or delete it (ARGV[2] '0'), bump the version: `{version, HGETALL}`. */
export const SETTINGS_WRITE = defineScript(
  'settings-write',
  `if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
local v = redis.call('HINCRBY', KEYS[1], '#version', 1)
return {tostring(v), redis.call('HGETALL', KEYS[1])}
`,
)
