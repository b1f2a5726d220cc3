import { defineScript } from '../../scripts/script.js'
import { QUEUE_PRELUDE } from './prelude.js'

/**
 * Give back what crashed workers held. ARGV after the prelude's: maxAttempts, grace ms, keep-failed ms.
 *
 * 1. A lease past its deadline (its worker died, or hung): the job goes back to the front of its lane, or
 *    fails for good after `maxAttempts` claims.
 * 2. A job a worker popped but never claimed (it died between BLMPOP and the claim): it is in its lane's
 *    unclaimed set but no longer in the list. Only a lane whose set is larger than its list is looked at;
 *    a job seen so is marked, and put back once it has been marked for `grace` (a live worker claims within
 *    a round trip).
 * 3. Failed jobs older than keep-failed are forgotten.
 *
 * Replies `{requeued, orphansRequeued, failed}`.
 */
export const REAP = defineScript(
  'queue-reap',
  `${QUEUE_PRELUDE}
local maxAttempts, grace = tonumber(ARGV[A + 1]), tonumber(ARGV[A + 2])
local requeued, orphans, failed = 0, 0, 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', LEASES, '-inf', now, 'LIMIT', 0, 100)) do
  redis.call('ZREM', LEASES, id)
  local i = lane_of(id)
  local attempts = tonumber(redis.call('HGET', ATTEMPTS, id) or '0')
  if not i or attempts >= maxAttempts then
    fail(id, 'its lease expired ' .. attempts .. ' times (the worker died or hung)')
    failed = failed + 1
  else
    requeue(i, id, true)
    requeued = requeued + 1
  end
end
for i = 1, L do
  if redis.call('ZCARD', unclaimed(i)) > redis.call('LLEN', pending(i)) then
    local listed = {}
    for _, id in ipairs(redis.call('LRANGE', pending(i), 0, -1)) do listed[id] = true end
    for _, id in ipairs(redis.call('ZRANGE', unclaimed(i), 0, -1)) do
      if not listed[id] then
        local seen = tonumber(redis.call('HGET', SUSPECTS, id))
        if not seen then
          redis.call('HSET', SUSPECTS, id, now)
        elseif now - seen >= grace then
          requeue(i, id, true)
          orphans = orphans + 1
        end
      end
    end
  end
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', FAILED_AT, '-inf', now - tonumber(ARGV[A + 3]), 'LIMIT', 0, 100)) do
  redis.call('HDEL', FAILED, id)
  redis.call('ZREM', FAILED_AT, id)
end
return {requeued, orphans, failed}
`,
)
