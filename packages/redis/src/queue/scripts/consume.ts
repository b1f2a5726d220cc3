import { defineScript } from '../../scripts/script.js'
import { QUEUE_PRELUDE } from './prelude.js'

/**
 * Claim a job a worker just popped (BLMPOP): take it off its lane's unclaimed set and give it a lease.
 * ARGV after the prelude's: id, lease ms. Replies `{payload, attempt}`, or nil when the job is not there to
 * claim (another worker has it, or it is gone).
 */
export const CLAIM = defineScript(
  'queue-claim',
  `${QUEUE_PRELUDE}
local id = ARGV[A + 1]
local i = lane_of(id)
if not i or redis.call('ZREM', unclaimed(i), id) == 0 then return false end
redis.call('HDEL', SUSPECTS, id)
local payload = redis.call('HGET', JOBS, id)
if not payload then return false end
local attempt = redis.call('HINCRBY', ATTEMPTS, id, 1)
redis.call('ZADD', LEASES, now + tonumber(ARGV[A + 2]), id)
return {payload, attempt}
`,
)

/** Extend a lease. ARGV after the prelude's: id, lease ms. Replies 1, or 0 when the lease was lost. */
export const RENEW = defineScript(
  'queue-renew',
  `${QUEUE_PRELUDE}
local id = ARGV[A + 1]
if not redis.call('ZSCORE', LEASES, id) then return 0 end
redis.call('ZADD', LEASES, now + tonumber(ARGV[A + 2]), id)
return 1
`,
)

/**
 * A job done: drop it, keep its result for `keep` ms, and update the time between completions (counted only
 * while jobs wait, when it measures how fast the workers go). ARGV after the prelude's: id, result, keep ms.
 * Replies 1, or 0 when the lease was lost (the job was handed to another worker and will run again).
 */
export const ACK = defineScript(
  'queue-ack',
  `${QUEUE_PRELUDE}
local id = ARGV[A + 1]
if redis.call('ZREM', LEASES, id) == 0 then return 0 end
redis.call('HDEL', JOBS, id)
redis.call('HDEL', ATTEMPTS, id)
redis.call('SET', RESULT, ARGV[A + 2], 'PX', ARGV[A + 3])
local s = redis.call('HMGET', STATS, 'interval', 'last')
local interval, last = tonumber(s[1]), tonumber(s[2])
if last and backlog() > 0 then
  local gap = math.max(0, now - last)
  if interval then interval = interval + 0.2 * (gap - interval) else interval = gap end
  redis.call('HSET', STATS, 'interval', interval)
end
redis.call('HSET', STATS, 'last', now)
return 1
`,
)

/**
 * A job whose handler failed: back to the end of its lane, or failed for good after `maxAttempts`. ARGV after
 * the prelude's: id, reason, maxAttempts. Replies 1 (queued again), 2 (failed) or 0 (the lease was lost).
 */
export const FAIL = defineScript(
  'queue-fail',
  `${QUEUE_PRELUDE}
local id = ARGV[A + 1]
if redis.call('ZREM', LEASES, id) == 0 then return 0 end
local i = lane_of(id)
local attempts = tonumber(redis.call('HGET', ATTEMPTS, id) or '0')
if not i or attempts >= tonumber(ARGV[A + 3]) then
  fail(id, ARGV[A + 2])
  return 2
end
requeue(i, id, false)
return 1
`,
)
