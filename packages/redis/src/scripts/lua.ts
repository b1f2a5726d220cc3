/**
 * The pieces every algorithm's Lua is written with. Redis runs a script's whole chunk on every call, so what
 * the chunk defines costs every decision: the algorithms' scripts define no helper function (each would be a
 * new closure per call) but write these pieces inline, and call the libraries through locals.
 *
 * State is stored as little-endian IEEE doubles (`struct.pack('<d')`): exact, bit for bit (-0 and fractions of
 * a ms included), with no text formatting or parsing. State is written with `SET ... PX` (never without a TTL),
 * kept `grace` ms past the moment it becomes equal to a fresh state, and deleted when it already is; a write
 * that keeps the key's expiry rewrites the bytes in place (`SETRANGE`, which keeps the TTL), and one that moves
 * the expiry of a bucket's or GCRA's key that exists rewrites them in place then sets the TTL (`PEXPIRE`, in
 * the same script: never without a TTL either).
 *
 * An algorithm's code sees `key`, `op` (`'c'` consume, `'p'` peek, `'r'` refund, `'s'` charge: spend whatever the limit says, a settled cost), `now` (ms), `cost`, `grace`
 * (ms) and its own parameters as locals, and `text` (reply as text, for clients without binary replies).
 */

/** The locals the algorithms' code calls the libraries through. */
export const LIBRARIES_LUA = `
local encode, decode, floor, ceil, max, fmt = struct.pack, struct.unpack, math.floor, math.ceil, math.max, string.format
`

/** Lua: the Redis server's clock in ms (with its µs), into `now`, unless `now` holds a time already. */
export const SERVER_CLOCK_LUA = `
if not now or now ~= now then
  local t = redis.call('TIME')
  now = t[1] * 1000 + t[2] / 1000
end
`

/**
 * Lua: store `value` at `key`, expiring `expiresIn` ms from now plus the grace (a whole number of ms, sent as
 * digits: Redis would format a Lua number with `%.17g`), or delete the key when `expiresIn` is not > 0.
 */
export const keep = (value: string, expiresIn: string): string =>
  `do local expires_in = ${expiresIn} if expires_in > 0 then ` +
  `redis.call('SET', key, ${value}, 'PX', string.format('%d', ceil(expires_in) + grace)) ` +
  `else redis.call('DEL', key) end end`

/**
 * Lua: store a state whose last field is the moment (ms, on the caller's clock) its key expires, read into
 * `expires` (nil when the stored state has none) from `raw` (the stored value, nil when there is none), for
 * the states whose expiry moves on with every write (the buckets, GCRA). The state becomes fresh `expiresIn`
 * ms from now (`whole`: a whole number of ms already, the `ceil` of it), and its key must outlive that by the
 * grace: when it already does, the state's other fields are rewritten in place and the expiry, field and TTL,
 * kept (`SETRANGE` of those fields alone, no TTL to set); else the key is stored to expire later again by the
 * grace or by `expiresIn`, whichever is longer, so that the writes which follow keep it: a key whose state
 * takes a long while to become fresh (a bucket that refills slowly, whose every admission moves that moment
 * on) gets a new TTL once per doubling of that while, not on every write. A key is kept at least a grace, and
 * at most a grace plus the longer of the grace and its last set `expiresIn`, past the moment its state
 * becomes fresh. A new TTL is `SET ... PX` for a new key, and for a key that exists its bytes rewritten in
 * place then `PEXPIRE` (cheaper than replacing its value: Redis frees nothing and allocates nothing). Deleted
 * when the state already is fresh. `fields` are the state's other fields, `format` their `struct` format.
 */
export const keepUntil = (format: string, fields: string, expiresIn: string, whole = false): string =>
  `do local expires_in = ${whole ? expiresIn : `ceil(${expiresIn})`} if expires_in > 0 then ` +
  `local need = expires_in + grace ` +
  `if expires and expires >= now + need then ` +
  `redis.call('SETRANGE', key, '0', encode('${format}', ${fields})) ` +
  `else local ttl = need + max(grace, expires_in) ` +
  `if raw then ` +
  `redis.call('SETRANGE', key, '0', encode('${format}d', ${fields}, now + ttl)) ` +
  `redis.call('PEXPIRE', key, fmt('%d', ttl)) ` +
  `else redis.call('SET', key, encode('${format}d', ${fields}, now + ttl), 'PX', fmt('%d', ttl)) end end ` +
  `else redis.call('DEL', key) end end`

/**
 * Lua: overwrite the state at `key` (which exists, with a value of the same length) and keep its expiry.
 * `SETRANGE` at 0 does both in one call, and is cheaper than `SET ... KEEPTTL`.
 */
export const rewrite = (value: string): string => `redis.call('SETRANGE', key, '0', ${value})`

/**
 * Lua: return a decision (each argument an expression; `allowed` the literal 1 or 0): little-endian doubles,
 * `remaining resetMs` alone (16 bytes) for an admission with no wait (`retryAfterMs` and `delayMs` the
 * literal 0), else all five, `allowed remaining resetMs retryAfterMs delayMs` (40 bytes); or the five as text
 * (`%.17g` round-trips every double; an infinite wait prints as `inf`). Must end a block, like a `return`.
 */
export const reply = (
  allowed: 0 | 1,
  remaining: string,
  resetMs: string,
  retryAfterMs: string,
  delayMs: string,
): string => {
  const fields = `${remaining}, ${resetMs}, ${retryAfterMs}, ${delayMs}`
  const text = `string.format('${allowed} %.17g %.17g %.17g %.17g', ${fields})`
  const binary =
    allowed === 1 && retryAfterMs === '0' && delayMs === '0'
      ? `encode('<dd', ${remaining}, ${resetMs})`
      : `encode('<ddddd', ${allowed}, ${fields})`
  return `if text then return ${text} end return ${binary}`
}

/** One algorithm's Lua: its code, and the locals it reads besides `key` (in the order of the arguments). */
export interface AlgorithmLua {
  /** The name of the function it is defined as in the several-keys script. */
  readonly name: string
  /** `op, now, cost, grace`, then the algorithm's parameters: the names the code reads them by. */
  readonly locals: readonly string[]
  /** Statements ending in a `return` of a decision ({@link reply}), or of `false` for a refund. */
  readonly body: string
}
