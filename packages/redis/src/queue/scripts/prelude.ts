import { PRELUDE } from '../../scripts/script.js'

/**
 * What every queue script starts with. Keys (all under the queue's hash tag, so one Cluster slot holds the
 * queue): `KEYS[1]` jobs (hash id -> payload), `KEYS[2]` attempts (hash), `KEYS[3]` leases (sorted set id ->
 * lease deadline), `KEYS[4]` suspects (hash id -> when it was first seen taken but never claimed), `KEYS[5]`
 * stats (hash), `KEYS[6]` failed (hash id -> reason), `KEYS[7]` failedAt (sorted set), then each lane's
 * pending list, then each lane's unclaimed set (id -> when queued), then the result key of the id at hand.
 * ARGV: the number of lanes, now (empty: the server's `TIME`), the lane names, then the script's own.
 *
 * A job id is `<lane>:<uuid>` (the uuid is 36 characters), so a script finds a job's lane from its id.
 */
export const QUEUE_PRELUDE = `${PRELUDE}
local L = tonumber(ARGV[1])
local now = clock(ARGV[2])
local names = {}
for i = 1, L do names[i] = ARGV[2 + i] end
local A = 2 + L
local JOBS, ATTEMPTS, LEASES, SUSPECTS, STATS, FAILED, FAILED_AT = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local function pending(i) return KEYS[7 + i] end
local function unclaimed(i) return KEYS[7 + L + i] end
local RESULT = KEYS[8 + 2 * L]
local function lane_of(id)
  local name = string.sub(id, 1, #id - 37)
  for i = 1, L do if names[i] == name then return i end end
  return nil
end
local function ahead_of(i)
  local n = 0
  for j = 1, i - 1 do n = n + redis.call('LLEN', pending(j)) end
  return n
end
local function backlog()
  local n = 0
  for j = 1, L do n = n + redis.call('LLEN', pending(j)) end
  return n
end
local function requeue(i, id, front)
  if front then redis.call('LPUSH', pending(i), id) else redis.call('RPUSH', pending(i), id) end
  redis.call('ZADD', unclaimed(i), now, id)
  redis.call('HDEL', SUSPECTS, id)
end
local function fail(id, reason)
  redis.call('HSET', FAILED, id, reason)
  redis.call('ZADD', FAILED_AT, now, id)
  redis.call('HDEL', JOBS, id)
  redis.call('HDEL', ATTEMPTS, id)
end
`
