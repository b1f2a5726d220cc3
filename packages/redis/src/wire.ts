import type { Algorithm, AlgorithmKind, Decision, FailSource } from '@floodgate/core'
import { PARAM_SLOTS, STEP_PARAMS, stepParams } from '@floodgate/core/internal'

/**
 * The wire format between the store and its scripts, the store's end (the scripts' end is
 * `scripts/entry.ts`): the arguments the store sends, and the reply it parses.
 *
 * To a client with binary replies (ioredis's `evalshaBuffer`, node-redis with a Buffer type mapping) the
 * arguments go as one string of bytes: Redis then parses one argument instead of several, and the script
 * reads the numbers with one `struct.unpack`, exactly, without parsing text.
 *
 * One-key scripts: `KEYS[1]` is the state. Binary: `ARGV[1]` is the op (one byte: `c` consume, `p` peek, `r`
 * refund), then little-endian doubles: now (NaN: the Redis server's clock), cost, grace ms, the algorithm's
 * parameters. Text: the same as separate arguments (now empty for the server's clock).
 *
 * The several-keys script: `KEYS` are the states. Binary: `ARGV[1]` is doubles: now (NaN: the server's
 * clock), grace, then per key its kind's index in {@link KINDS}, cost and {@link PARAM_SLOTS} parameter slots.
 * Text: the same as separate arguments.
 *
 * A decision is one reply, `allowed remaining resetMs retryAfterMs delayMs`: for clients that take a binary
 * reply, five little-endian doubles in 40 bytes, or only `remaining resetMs` in 16 for an admission with
 * no wait (allowed, `retryAfterMs` and `delayMs` 0); else text in `%.17g`, which also round-trips every double
 * (a Lua number in a reply would be truncated to an integer). A request that can never pass has an infinite
 * `retryAfterMs` (`inf` in text).
 */

/** Where a RedisStore decision came from: the script, the block cache, or a fail mode. */
export type DecisionSource = 'redis' | 'block-cache' | FailSource

/** A {@link Decision} that also says where it came from. */
export interface RedisDecision extends Decision {
  source: DecisionSource
}

/** The operations of a one-key script. */
export type Operation = 'consume' | 'peek' | 'refund'

/** Each operation's op: the letter the scripts compare, and its byte. */
const OPS: Record<Operation, { text: string; byte: number }> = {
  consume: { text: 'c', byte: 0x63 },
  peek: { text: 'p', byte: 0x70 },
  refund: { text: 'r', byte: 0x72 },
}

/** Every kind, in the order the several-keys script numbers them (1-based in Lua). */
export const KINDS = Object.keys(STEP_PARAMS) as readonly AlgorithmKind[]

/** How many parameter slots every item of the several-keys script has. */
export { PARAM_SLOTS }

/** An algorithm as its scripts' arguments, made once per store and algorithm. */
export interface ScriptParams {
  /** The kind's position in {@link KINDS}, from 1. */
  readonly kindIndex: number
  /** The parameters (the numbers the TypeScript computes with). */
  readonly values: readonly number[]
  /** The parameters as text: `String(n)` is the shortest text that parses back to the same double. */
  readonly texts: readonly string[]
  /** Grace then the parameters, as little-endian doubles: the tail of a one-key script's binary argument. */
  readonly tail: Buffer
}

/** An algorithm's parameters as script arguments, with the store's grace (ms). */
export function scriptParams(algorithm: Algorithm, grace: number): ScriptParams {
  const values = stepParams(algorithm, 'RedisStore')
  const tail = Buffer.alloc(8 * (1 + values.length))
  tail.writeDoubleLE(grace, 0)
  for (let i = 0; i < values.length; i++) tail.writeDoubleLE(values[i]!, 8 * (i + 1))
  return { kindIndex: KINDS.indexOf(algorithm.kind) + 1, values, texts: values.map(String), tail }
}

const number = (n: number): string => (n === 1 ? '1' : String(n))

/** `rkey` then the ARGV of a one-key script: one Buffer for a client with binary replies, else text. */
export function singleArgs(
  rkey: string,
  operation: Operation,
  binary: boolean,
  now: number | undefined,
  cost: number,
  grace: string,
  params: ScriptParams,
): (string | Buffer)[] {
  const op = OPS[operation]
  if (!binary)
    return [rkey, op.text, now === undefined ? '' : String(now), number(cost), grace, ...params.texts]
  const tail = params.tail
  const args = Buffer.allocUnsafe(17 + tail.length)
  args[0] = op.byte
  args.writeDoubleLE(now === undefined ? Number.NaN : now, 1)
  args.writeDoubleLE(cost, 9)
  tail.copy(args, 17)
  return [rkey, args]
}

/** The ARGV of the several-keys script: one Buffer for a client with binary replies, else text. */
export function consumeAllArgs(
  binary: boolean,
  now: number | undefined,
  grace: number,
  items: readonly { cost: number; params: ScriptParams }[],
): (string | Buffer)[] {
  if (!binary) {
    const args = [now === undefined ? '' : String(now), String(grace)]
    for (const { cost, params } of items) {
      args.push(String(params.kindIndex), number(cost))
      for (let i = 0; i < PARAM_SLOTS; i++) args.push(params.texts[i] ?? '')
    }
    return args
  }
  const per = 8 * (2 + PARAM_SLOTS)
  const args = Buffer.alloc(16 + per * items.length)
  args.writeDoubleLE(now === undefined ? Number.NaN : now, 0)
  args.writeDoubleLE(grace, 8)
  items.forEach(({ cost, params }, i) => {
    const at = 16 + per * i
    args.writeDoubleLE(params.kindIndex, at)
    args.writeDoubleLE(cost, at + 8)
    for (let j = 0; j < params.values.length; j++) args.writeDoubleLE(params.values[j]!, at + 16 + 8 * j)
  })
  return [args]
}

/** The sizes of a binary reply: five little-endian doubles, or two for an admission with no wait. */
const REPLY_BYTES = 40
const ADMITTED_BYTES = 16

/** A text field as a number; Lua prints an infinite wait as `inf`. */
const field = (text: string): number => (text === 'inf' ? Number.POSITIVE_INFINITY : Number(text))

/**
 * Parse a script's reply (little-endian doubles in a Buffer, or text) into a decision. Throws on anything
 * else: the store treats an unreadable reply as a failure.
 */
export function parseReply(reply: unknown, algorithm: Algorithm): RedisDecision {
  if (Buffer.isBuffer(reply) && reply.length === ADMITTED_BYTES) {
    return {
      allowed: true,
      limit: algorithm.limit,
      remaining: reply.readDoubleLE(0),
      resetMs: reply.readDoubleLE(8),
      retryAfterMs: 0,
      delayMs: 0,
      policy: '',
      source: 'redis',
    }
  }
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
