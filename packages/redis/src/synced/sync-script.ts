import { defineScript, PRELUDE, type Script } from '../scripts/script.js'
import type { WindowDeltas } from './window-deltas.js'
import type { WindowKind } from './window-kinds.js'

/**
 * The sync script and its wire format, both ends in one place.
 *
 * `KEYS` are RedisStore state keys (`store.keyOf(algorithm, key)`), all on one Cluster slot. `ARGV` is the reply
 * format (`b` binary, `t` text), now (empty: the Redis server's clock), the expiry grace in ms, then six fields
 * per key: its kind (`fw`, `swc`), its window in ms and two `start amount` pairs, the older window first (empty
 * when unused). Each pair is added to the key's state exactly as `WindowKind.merge` adds it in TypeScript, and
 * written back in the RedisStore's own format (little-endian doubles, `SET ... PX` to the moment it becomes
 * fresh plus the grace), so the RedisStore's scripts decide on the same totals.
 *
 * Reply: the clock the script used, as text, then each key's state after the merge: its raw bytes (binary) or
 * its numbers in `%.17g` (text), or an empty string when the key holds nothing.
 */
export const SYNC: Script = defineScript(
  'synced_sync',
  `${PRELUDE}
local text = ARGV[1] == 't'
local now = clock(ARGV[2])
local grace = tonumber(ARGV[3])
local function deltas_at(a)
  local out = {}
  for i = a + 3, a + 5, 2 do
    if ARGV[i] ~= '' then
      out[#out + 1] = tonumber(ARGV[i])
      out[#out + 1] = tonumber(ARGV[i + 1])
    end
  end
  return out
end
local function merge_fw(key, w, deltas)
  local raw = redis.call('GET', key)
  local start, count = 0, 0
  if raw then start, count = decode('<dd', raw) end
  local changed = false
  for i = 1, #deltas, 2 do
    local s, amount = deltas[i], deltas[i + 1]
    if s == start then
      count = math.max(0, count + amount)
      changed = true
    elseif s > start and amount > 0 then
      start, count, changed = s, amount, true
    end
  end
  if count <= 0 then
    if changed then redis.call('DEL', key) end
    return ''
  end
  local value = encode('<dd', start, count)
  if changed then keep(key, value, start + w - now, grace) end
  if text then return string.format('%.17g %.17g', start, count) end
  return value
end
local function merge_swc(key, w, deltas)
  local raw = redis.call('GET', key)
  local start, curr, prev = 0, 0, 0
  if raw then start, curr, prev = decode('<ddd', raw) end
  local changed = false
  for i = 1, #deltas, 2 do
    local s, amount = deltas[i], deltas[i + 1]
    if s == start then
      curr = math.max(0, curr + amount)
      changed = true
    elseif s == start - w then
      prev = math.max(0, prev + amount)
      changed = true
    elseif s > start and amount > 0 then
      if s == start + w then prev = curr else prev = 0 end
      start, curr, changed = s, amount, true
    end
  end
  local expires = 0
  if curr > 0 then expires = start + 2 * w elseif prev > 0 then expires = start + w end
  if expires == 0 then
    if changed then redis.call('DEL', key) end
    return ''
  end
  local value = encode('<ddd', start, curr, prev)
  if changed then keep(key, value, expires - now, grace) end
  if text then return string.format('%.17g %.17g %.17g', start, curr, prev) end
  return value
end
local out = { string.format('%.17g', now) }
for i = 1, #KEYS do
  local a = 3 + (i - 1) * 6
  local w = tonumber(ARGV[a + 2])
  if ARGV[a + 1] == 'fw' then
    out[i + 1] = merge_fw(KEYS[i], w, deltas_at(a))
  else
    out[i + 1] = merge_swc(KEYS[i], w, deltas_at(a))
  end
end
return out
`,
)

/**
 * Presence: `KEYS[1]` is a sorted set of the processes syncing under one prefix, scored by the Redis server's
 * clock. `ARGV`: `join` or `leave`, the process's id, the horizon in ms (members not seen for that long are
 * dropped). Replies with how many processes remain.
 */
export const FLEET: Script = defineScript(
  'synced_fleet',
  `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local horizon = tonumber(ARGV[3])
if ARGV[1] == 'leave' then
  redis.call('ZREM', KEYS[1], ARGV[2])
else
  redis.call('ZADD', KEYS[1], now, ARGV[2])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - horizon)
redis.call('PEXPIRE', KEYS[1], math.ceil(horizon))
return redis.call('ZCARD', KEYS[1])
`,
)

/** Every script of the SyncedStore, for the test that checks their SHA1 against `SCRIPT LOAD`. */
export const SYNCED_SCRIPTS: readonly Script[] = [SYNC, FLEET]

/** One key of a sync call. */
export interface SyncItem {
  readonly kind: WindowKind
  /** The key's window, in ms, as text. */
  readonly windowArg: string
  readonly deltas: WindowDeltas
}

/** KEYS then ARGV of one sync call, in one array: the items' Redis keys, then their arguments. */
export function syncArgs(parts: {
  binary: boolean
  now: number | undefined
  grace: number
  keys: readonly string[]
  items: readonly SyncItem[]
}): string[] {
  const args = [...parts.keys]
  args.push(parts.binary ? 'b' : 't', parts.now === undefined ? '' : String(parts.now), String(parts.grace))
  for (const item of parts.items) {
    args.push(item.kind.code, item.windowArg)
    let pairs = 0
    item.deltas.forEach((start, amount) => {
      args.push(String(start), String(amount))
      pairs++
    })
    for (; pairs < 2; pairs++) args.push('', '')
  }
  return args
}

const asText = (part: unknown): string | undefined =>
  typeof part === 'string' ? part : Buffer.isBuffer(part) ? part.toString('latin1') : undefined

/** Whether `part` is a state this reply format can hold: raw doubles (binary), `%.17g` numbers (text) or empty. */
function stateOk(part: unknown, size: number, binary: boolean): boolean {
  if (binary && Buffer.isBuffer(part)) return part.length === 0 || part.length === size * 8
  const text = asText(part)
  if (text === undefined) return false
  if (text === '') return true
  const fields = text.split(' ')
  return fields.length === size && fields.every((f) => Number.isFinite(Number(f)))
}

/** Write a state {@link stateOk} accepted into `target` (all zeros when empty). */
export function readState(part: unknown, target: Float64Array, binary: boolean): void {
  if (binary && Buffer.isBuffer(part)) {
    if (part.length === 0) target.fill(0)
    else for (let i = 0; i < target.length; i++) target[i] = part.readDoubleLE(i * 8)
    return
  }
  const text = asText(part)!
  if (text === '') target.fill(0)
  else target.set(text.split(' ').map(Number))
}

/** A sync reply, checked: the clock the script used, and one state per item (see {@link readState}). */
export interface SyncReply {
  readonly now: number
  readonly states: readonly unknown[]
}

/** Check a sync reply for `items`; throws (the sync then counts as failed) on anything unexpected. */
export function parseSyncReply(reply: unknown, items: readonly SyncItem[], binary: boolean): SyncReply {
  if (!Array.isArray(reply) || reply.length !== items.length + 1) {
    throw new TypeError(`Unexpected reply from the sync script: ${String(reply).slice(0, 80)}`)
  }
  const now = Number(asText(reply[0]))
  if (!Number.isFinite(now)) throw new TypeError('Unexpected clock in the sync reply')
  const states = reply.slice(1)
  const bad = states.findIndex((part, i) => !stateOk(part, items[i]!.kind.stateSize, binary))
  if (bad !== -1)
    throw new TypeError(`Unexpected state in the sync reply: ${String(states[bad]).slice(0, 80)}`)
  return { now, states }
}
