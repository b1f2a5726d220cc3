import { type AlgorithmLua, reply } from './lua.js'

/**
 * How many slots a log's string may have: `2^26` (its header packs two slot numbers in one double, and Redis
 * holds no string over 512 MB, 2^26 slots, anyway).
 */
const SLOTS = 67_108_864

/** Up to which slot an admission's offset is picked among constants (`OFFSET_DIGITS`), not formatted. */
const DIGITS_UP_TO = 256

/**
 * Lua: `d = '<8 * slot>'`, the digits of `slot`'s byte offset for `slot` in `lo..hi`, found by halving among
 * string constants: formatting a number (`string.format`) makes a new string in a call to C, which costs
 * Redis more than eight comparisons and a constant (an admission at 256 in flight about 1,000 CPU
 * instructions less: `bench/suites/redis/script-cost.mjs`).
 */
const offsetDigits = (lo: number, hi: number): string => {
  if (lo === hi) return `d = '${8 * lo}'`
  const mid = (lo + hi) >>> 1
  return `if slot <= ${mid} then ${offsetDigits(lo, mid)} else ${offsetDigits(mid + 1, hi)} end`
}
const OFFSET_DIGITS = offsetDigits(1, DIGITS_UP_TO)

/**
 * How many slots, dropped (expired, trimmed or refunded) or unused, a log holds before an admission writes it
 * afresh with only its live entries: at least this many and at least as many as it has live entries, so
 * copying the live ones costs an admission one entry's copy on average.
 */
export const LOG_WASTE_SLOTS = 32

/**
 * Lua: the TTL a log's key is given when it is set: the grace past the new entries' expiry, and a window more
 * for the admissions that follow (computed only where a TTL is set: an admission that keeps it calls nothing).
 */
const LOG_TTL = 'ceil(w) + grace + max(grace, ceil(w))'

/**
 * Sliding window log, as `@floodgate/core`'s `slidingWindowLog`: the expiry times (`admittedAt + window`) of
 * admitted units, oldest first, in one string of 8-byte little-endian doubles: the slots, then a header of
 * three doubles at the very end of the string, which a decision reads with the slot before it, whatever the
 * string's length (`GETRANGE key -32 -1`):
 *
 * ```
 * slot 0 .. first-1 | slot first .. tail-1    | slot tail .. size-1      | packed     oldest expires
 *   dropped         |  the log, oldest first  |  unused (after a refund) | the header, at byte 8 * size
 * ```
 *
 * `packed` is `tail * 2^26 + first`, negated when a refund left unused slots (`size > tail`: the last of them
 * then holds `size`; else `size = tail` and the slot before the header is the newest entry). `oldest` is the
 * log's first entry (no read needed to know whether any expired, nor for a refusal's retry at cost 1),
 * `expires` the moment (on the caller's clock) the key's TTL runs out. The TypeScript keeps a ring of `limit`
 * slots where zeros and past times are free; the log holds the same entries minus (some of) the free ones, so
 * `free = limit - live` and the ring's `i`-th oldest entry is the log's `i - free`-th. Costs are whole
 * entries: a fractional cost is rounded up.
 *
 * - **An admission** (the oldest entry not expired, `cost` free): `GETRANGE` of the last 32 bytes, then ONE
 *   `SETRANGE` of the `cost` new entries and the header behind them, from where the header was (the string
 *   grows by `8 * cost` bytes, or fills the slots a refund left). `PEXPIRE` only when the key's TTL must move
 *   (as `keepUntil`: the key must outlive its newest entry by the grace; when it would not, it is set to
 *   outlive it by the grace plus the longer of the grace and the window: once a window at most). A ring with
 *   its header apart from the slots (`GETRANGE`, `SETRANGE` of the slot, `SETRANGE` of the header) would
 *   cost one command more per admission, about 4,000 CPU instructions of Redis, which alone would put it
 *   above rate-limit-redis's whole decision.
 * - **Expired entries**: `oldest <= now`; the next 16 slots are read in one `GETRANGE`, and when all of them
 *   have expired too, the rest is searched by halving (the log is sorted, as the TypeScript's binary search
 *   assumes): `first` moves on. Dropped slots stay in the string until an admission finds at least
 *   `LOG_WASTE_SLOTS` and at least as many as there are live entries (dropped and unused together): it then
 *   writes the live entries, the new ones and the header afresh (`GETRANGE` of the live ones, `SET ... PX`,
 *   which sets the TTL too). An admission to a log with no live entry (a new key) is that `SET ... PX` alone.
 *   The string therefore holds at most about twice the live entries (plus 32 slots and what refunds freed),
 *   never `limit` slots it does not use.
 * - **A refusal or a peek** reads the same 32 bytes, plus one slot for a refusal's retry at a cost above 1
 *   (the `cost`-th oldest entry) and one for the newest entry after a refund; it writes nothing.
 * - **A refund** pops the newest entries: `tail` moves back and the header stays at the end of the string,
 *   the slots before it unused until admissions fill them (one `SETRANGE` of the header and the slot before
 *   it, or `DEL` when nothing is left). No TTL change.
 * - **A charge** (a settled cost) appends `min(cost, limit)` entries at now and drops the oldest past `limit`
 *   (as the TypeScript writes them over its ring's oldest).
 *
 * Offsets are sent to Redis as digits: an admission's, up to slot 256, picked among string constants by
 * halving (`OFFSET_DIGITS`); the others made with `string.format('%d')` (`fmt`). Formatting one was the largest
 * cost an admission had over the sliding window counter's (about 1,000 CPU instructions of Redis per
 * decision at 256 in flight); Redis 7.0 would format a Lua number given to it with `%.17g`, which costs more.
 *
 * Params: limit, windowMs.
 */
export const SLIDING_WINDOW_LOG: AlgorithmLua = {
  name: 'sliding_window_log',
  locals: ['op', 'now', 'raw_cost', 'grace', 'limit', 'w'],
  body: `
local cost = raw_cost
if cost ~= 1 and cost % 1 ~= 0 then cost = ceil(cost) end
local h = redis.call('GETRANGE', key, '-32', '-1')
local packed, oldest, expires, first, tail, size
if h ~= '' then
  packed, oldest, expires = decode('<ddd', h, 9)
  -- Negative when a refund left unused slots: the slot before the header then holds the size.
  if packed < 0 then packed, size = -packed, decode('<d', h) end
  first = packed % ${SLOTS}
  tail = (packed - first) / ${SLOTS}
  size = size or tail
else
  first, tail, size, oldest = 0, 0, 0, 0
end
if op == 'r' then
  local k = math.min(cost, limit, tail - first)
  if k > 0 then
    tail = tail - k
    if tail == first then
      redis.call('DEL', key)
    else
      redis.call('SETRANGE', key, fmt('%d', 8 * size - 8), encode('<dddd', size, -(tail * ${SLOTS} + first), oldest, expires))
    end
  end
  return false
end
local n = tail - first
if n > 0 and oldest <= now then
  -- Expired: the first entry that is not lies in the next 16 slots, or (the log is sorted) is found by halving.
  local lo, hi = first + 1, math.min(tail, first + 17)
  first = tail
  if lo < hi then
    local chunk = redis.call('GETRANGE', key, fmt('%d', 8 * lo), fmt('%d', 8 * hi - 1))
    for i = 0, hi - lo - 1 do
      local e = decode('<d', chunk, 8 * i + 1)
      if e > now then
        first, oldest = lo + i, e
        break
      end
    end
    if first == tail and hi < tail then
      lo, hi = hi, tail
      while lo < hi do
        local mid = floor((lo + hi) / 2)
        local e = decode('<d', redis.call('GETRANGE', key, fmt('%d', 8 * mid), fmt('%d', 8 * mid + 7)))
        if e > now then hi, oldest = mid, e else lo = mid + 1 end
      end
      first = lo
    end
  end
  n = tail - first
end
local free = limit - n
local m = cost
if op ~= 'c' or cost > free then
  if op == 's' then
    -- A charge (a settled cost): min(cost, limit) entries at now after the live ones, the log kept to the
    -- newest \`limit\` (as the TypeScript writes them over its ring's oldest).
    m = math.min(cost, limit)
    if n + m > limit then
      first = tail - (limit - m)
      n = limit - m
      if n > 0 then oldest = decode('<d', redis.call('GETRANGE', key, fmt('%d', 8 * first), fmt('%d', 8 * first + 7))) end
    end
  else
    -- The newest entry is the slot before the header, unless a refund left unused slots between them.
    local newest = 0
    if size == tail then
      if tail > 0 then newest = decode('<d', h) end
    else
      newest = decode('<d', redis.call('GETRANGE', key, fmt('%d', 8 * tail - 8), fmt('%d', 8 * tail - 1)))
    end
    if cost <= free then
      local reset = 0
      if newest > now then reset = newest - now end
      ${reply(1, 'free', 'reset', '0', '0')}
    end
    local retry = math.huge
    if cost <= limit then
      -- The ring's cost-th oldest entry: the log's (cost - free)-th.
      local slot = first + cost - 1 - free
      if slot == first then
        retry = oldest - now
      else
        retry = decode('<d', redis.call('GETRANGE', key, fmt('%d', 8 * slot), fmt('%d', 8 * slot + 7))) - now
      end
    end
    local reset = 0
    if n > 0 then reset = newest - now end
    ${reply(0, 'free', 'reset', 'retry', '0')}
  end
end
if m > 0 then
  local e = now + w
  local waste = first + size - tail
  if n == 0 or waste >= ${LOG_WASTE_SLOTS} and (waste >= n or tail + m >= ${SLOTS}) then
    -- Written afresh: the live entries (none for a new key), the new ones, the header; the TTL set.
    local ttl = ${LOG_TTL}
    local live = ''
    if n > 0 then live = redis.call('GETRANGE', key, fmt('%d', 8 * first), fmt('%d', 8 * tail - 1)) else oldest = e end
    if m > 1 then live = live .. string.rep(encode('<d', e), m - 1) end
    redis.call('SET', key, live .. encode('<dddd', e, (n + m) * ${SLOTS}, oldest, now + ttl), 'PX', fmt('%d', ttl))
  else
    -- The key must outlive the new entries by the grace: ceil(w) + grace ms from now (w + 1 covers ceil(w)).
    if expires < e + grace + 1 then
      local ttl = ${LOG_TTL}
      expires = now + ttl
      redis.call('PEXPIRE', key, fmt('%d', ttl))
    end
    local slot = tail
    tail = tail + m
    if tail >= size then
      -- The usual case: the new entries, the newest last, and the header right behind them, from where the
      -- header (or the first slot a refund left) was.
      local last = encode('<dddd', e, tail * ${SLOTS} + first, oldest, expires)
      if m > 1 then last = string.rep(encode('<d', e), m - 1) .. last end
      local d
      if slot <= ${DIGITS_UP_TO} then
        ${OFFSET_DIGITS}
      else
        d = fmt('%d', 8 * slot)
      end
      redis.call('SETRANGE', key, d, last)
    else
      -- Into the slots a refund left, some of them still unused: the slot before the header holds \`size\`.
      local last = encode('<dddd', size, -(tail * ${SLOTS} + first), oldest, expires)
      if size - tail <= 16 then
        redis.call('SETRANGE', key, fmt('%d', 8 * slot), string.rep(encode('<d', e), size - 1 - slot) .. last)
      else
        redis.call('SETRANGE', key, fmt('%d', 8 * slot), string.rep(encode('<d', e), m))
        redis.call('SETRANGE', key, fmt('%d', 8 * size - 8), last)
      end
    end
  end
end
if op == 's' then return false end
${reply(1, 'free - cost', 'w', '0', '0')}
`,
}
