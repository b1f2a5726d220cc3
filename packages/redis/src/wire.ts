import type { Algorithm, AlgorithmKind, Decision, FailSource } from '@floodgate/core'

/**
 * The wire format between the store and its scripts, both ends in one place: the arguments the store sends
 * (built here) and reads (the Lua below), and the reply the scripts send (the Lua `reply`) and the store
 * parses (`parseReply`).
 *
 * One-key scripts: `KEYS[1]` is the state; `ARGV` is op (`c` consume, `p` peek, `r` refund; upper case asks
 * for a text reply), now (empty: the Redis server's clock), cost, grace ms, then the algorithm's parameters.
 *
 * The several-keys script: `KEYS` are the states; `ARGV` is the reply format (`b` binary, `t` text), now,
 * grace, then per key its kind, cost and four parameter slots.
 *
 * A decision is one reply, `allowed remaining resetMs retryAfterMs delayMs`: five little-endian doubles in 40
 * bytes for clients that take a binary reply (ioredis's `evalshaBuffer`), else text in `%.17g`, which also
 * round-trips every double (a Lua number in a reply would be truncated to an integer). A request that can
 * never pass has an infinite `retryAfterMs` (`inf` in text).
 */

/** Where a RedisStore decision came from: the script, the block cache, or a fail mode. */
export type DecisionSource = 'redis' | 'block-cache' | FailSource

/** A {@link Decision} that also says where it came from. */
export interface RedisDecision extends Decision {
  source: DecisionSource
}

/** The operations of a one-key script. */
export type Operation = 'consume' | 'peek' | 'refund'

const OPS: Record<Operation, { binary: string; text: string }> = {
  consume: { binary: 'c', text: 'C' },
  peek: { binary: 'p', text: 'P' },
  refund: { binary: 'r', text: 'R' },
}

/** The parameters each algorithm's script takes, in order, from `algorithm.params`. */
const PARAMS: Record<AlgorithmKind, readonly string[]> = {
  'fixed-window': ['limit', 'windowMs'],
  'sliding-window-counter': ['limit', 'windowMs'],
  'sliding-window-log': ['limit', 'windowMs'],
  'token-bucket': ['capacity', 'rate', 'intervalMs', 'shape'],
  'leaky-bucket': ['capacity', 'rate', 'intervalMs', 'shape'],
  gcra: ['emissionMs', 'toleranceMs', 'burst'],
  'calendar-quota': ['limit', 'period', 'offsetMs'],
}

/** How many parameter slots every item of the several-keys script has. */
export const PARAM_SLOTS = 4

/**
 * An algorithm's parameters as script arguments. `String(n)` is the shortest text that parses back to
 * the same double, so the Lua computes with exactly the numbers the TypeScript does.
 */
export function scriptParams(algorithm: Algorithm): string[] {
  const names = PARAMS[algorithm.kind]
  if (!names) {
    throw new TypeError(
      `RedisStore runs the algorithms of @floodgate/core; it has no script for kind '${String(algorithm.kind)}'`,
    )
  }
  return names.map((name) => {
    const value = algorithm.params[name]
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new TypeError(`Expected the ${algorithm.kind} algorithm to have a numeric params.${name}`)
    }
    return String(value)
  })
}

const number = (n: number): string => (n === 1 ? '1' : String(n))

/** The ARGV of a one-key script. */
export function singleArgs(parts: {
  operation: Operation
  binary: boolean
  now: number | undefined
  cost: number
  grace: string
  params: readonly string[]
}): string[] {
  const op = OPS[parts.operation]
  return [
    parts.binary ? op.binary : op.text,
    parts.now === undefined ? '' : String(parts.now),
    number(parts.cost),
    parts.grace,
    ...parts.params,
  ]
}

/** The ARGV of the several-keys script. */
export function consumeAllArgs(parts: {
  binary: boolean
  now: number | undefined
  grace: string
  items: readonly { kind: AlgorithmKind; cost: number; params: readonly string[] }[]
}): string[] {
  const args = [parts.binary ? 'b' : 't', parts.now === undefined ? '' : String(parts.now), parts.grace]
  for (const item of parts.items) {
    args.push(item.kind, number(item.cost))
    for (let i = 0; i < PARAM_SLOTS; i++) args.push(item.params[i] ?? '')
  }
  return args
}

/** The Lua that replies with a decision, binary or as text (`text` is set by the entry code). */
export const REPLY_LUA = `
local text = false
local function reply(allowed, remaining, resetMs, retryAfterMs, delayMs)
  if text then
    local f = '%.17g'
    return allowed .. ' ' .. string.format(f, remaining) .. ' ' .. string.format(f, resetMs) .. ' ' ..
      string.format(f, retryAfterMs) .. ' ' .. string.format(f, delayMs)
  end
  return encode('<ddddd', allowed, remaining, resetMs, retryAfterMs, delayMs)
end
local function replied_allowed(out)
  if text then return string.byte(out, 1) == 49 end
  return decode('<d', out) == 1
end
`

/** The entry code of a one-key script: reads the ARGV {@link singleArgs} builds. */
export const SINGLE_MAIN_LUA = `
local op = ARGV[1]
if op == 'C' or op == 'P' or op == 'R' then
  text = true
  op = string.lower(op)
end
return decide(KEYS[1], op, clock(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]),
  tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8]))
`

/**
 * The entry code of the several-keys script: reads the ARGV {@link consumeAllArgs} builds, peeks every
 * item, and consumes them all only when all would pass. `decide` maps a kind to its function.
 */
export const CONSUME_ALL_MAIN_LUA = `
text = ARGV[1] == 't'
local now = clock(ARGV[2])
local grace = tonumber(ARGV[3])
local per = ${2 + PARAM_SLOTS}
local out = {}
local all = true
for pass = 1, 2 do
  local op = 'p'
  if pass == 2 then op = 'c' end
  for i = 1, #KEYS do
    local a = 3 + (i - 1) * per
    out[i] = decide[ARGV[a + 1]](KEYS[i], op, now, tonumber(ARGV[a + 2]), grace,
      tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6]))
    if not replied_allowed(out[i]) then all = false end
  end
  if not all then break end
end
return out
`

/** The size of a binary reply: five little-endian doubles. */
const REPLY_BYTES = 40

/** A text field as a number; Lua prints an infinite wait as `inf`. */
const field = (text: string): number => (text === 'inf' ? Number.POSITIVE_INFINITY : Number(text))

/**
 * Parse a script's reply (five little-endian doubles in a Buffer, or the same as text) into a decision.
 * Throws on anything else: the store treats an unreadable reply as a failure.
 */
export function parseReply(reply: unknown, algorithm: Algorithm): RedisDecision {
  if (Buffer.isBuffer(reply) && reply.length === REPLY_BYTES) {
    return {
      allowed: reply.readDoubleLE(0) === 1,
      limit: algorithm.limit,
      remaining: reply.readDoubleLE(8),
      resetMs: reply.readDoubleLE(16),
      retryAfterMs: reply.readDoubleLE(24),
      delayMs: reply.readDoubleLE(32),
      policy: '',
      source: 'redis',
    }
  }
  const fields = typeof reply === 'string' ? reply.split(' ') : []
  if (fields.length !== 5 || fields.slice(1).some((f) => Number.isNaN(field(f)))) {
    throw new TypeError(`Unexpected reply from a Floodgate script: ${String(reply).slice(0, 80)}`)
  }
  return {
    allowed: fields[0] === '1',
    limit: algorithm.limit,
    remaining: field(fields[1]!),
    resetMs: field(fields[2]!),
    retryAfterMs: field(fields[3]!),
    delayMs: field(fields[4]!),
    policy: '',
    source: 'redis',
  }
}
