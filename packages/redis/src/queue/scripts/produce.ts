import { defineScript } from '../../scripts/script.js'
import { QUEUE_PRELUDE } from './prelude.js'

/**
 * Enqueue, atomically: refuse when the lane holds `capacity` jobs already, else store the payload and push
 * the id. ARGV after the prelude's: lane index, id, payload, capacity. Replies `{1, position, ahead}` (its
 * place in its lane, and jobs before it in every lane) or `{0, retryAfterMs}`: the jobs before the lane's
 * first, plus one, times the time between completions (the larger of its moving average while there was a
 * backlog and the time since the last one), 1 s a job before any completion.
 */
export const ENQUEUE = defineScript(
  'queue-enqueue',
  `${QUEUE_PRELUDE}
local i, id, capacity = tonumber(ARGV[A + 1]), ARGV[A + 2], tonumber(ARGV[A + 4])
local len = redis.call('LLEN', pending(i))
if len >= capacity then
  local s = redis.call('HMGET', STATS, 'interval', 'last')
  local interval, last = tonumber(s[1]), tonumber(s[2])
  local per = 1000
  if last then per = math.max(interval or 0, now - last) end
  return {0, math.ceil((ahead_of(i) + 1) * per)}
end
redis.call('HSET', JOBS, id, ARGV[A + 3])
redis.call('RPUSH', pending(i), id)
redis.call('ZADD', unclaimed(i), now, id)
return {1, len + 1, ahead_of(i) + len}
`,
)

/**
 * Where a job is. ARGV after the prelude's: id. Replies `{'done', result}`, `{'failed', reason}`,
 * `{'active', attempt}`, `{'queued', position, ahead}` (0-based place in its lane, and jobs before it in
 * every lane; -1 while a worker is taking it) or `{'unknown'}` (never queued, or its result expired).
 */
export const STATUS = defineScript(
  'queue-status',
  `${QUEUE_PRELUDE}
local id = ARGV[A + 1]
local i = lane_of(id)
local result = redis.call('GET', RESULT)
if result then return {'done', result} end
local reason = redis.call('HGET', FAILED, id)
if reason then return {'failed', reason} end
if redis.call('ZSCORE', LEASES, id) then return {'active', redis.call('HGET', ATTEMPTS, id) or '1'} end
if i and redis.call('ZSCORE', unclaimed(i), id) then
  local pos = redis.call('LPOS', pending(i), id)
  if pos then return {'queued', pos, ahead_of(i) + pos} end
  return {'queued', -1, -1}
end
return {'unknown'}
`,
)
