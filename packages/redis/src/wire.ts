import type { Algorithm, ConsumeItem, Decision } from '@floodgate/core'
import type { AlgorithmKind } from '@floodgate/core/internal'
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
 * refund, `s` charge), then little-endian doubles: now (NaN: the Redis server's clock), cost, grace ms, the algorithm's
 * parameters. Text: the same as separate arguments (now empty for the server's clock).
 *
 * The several-keys script: `KEYS` are the states, group after group (a group: one request's items, decided as
 * one), each item's ban key right after its state's key when it has a `ban`. Binary: `ARGV[1]` is doubles:
 * grace, then per group its number of items and its now (NaN: the server's clock), then per item its kind's
 * index in {@link KINDS} (negated for an item with a ban), cost and {@link PARAM_SLOTS} parameter slots, and
 * for an item with a ban `after withinMs forMs`. Text: the same as separate arguments (now empty for the
 * server's clock). A banned item's decision has two more fields, `bannedMs bannedNow` (56 bytes).
 *
 * A decision is one reply, `allowed remaining resetMs retryAfterMs delayMs`: for clients that take a binary
 * reply, five little-endian doubles in 40 bytes, or only `remaining resetMs` in 16 for an admission with
 * no wait (allowed, `retryAfterMs` and `delayMs` 0), or `remaining resetMs lease units` in 32 for an admission
 * that holds a lease (`concurrency`; text: the five fields, then `lease units`); else text in `%.17g`, which also round-trips every double
 * (a Lua number in a reply would be truncated to an integer). A request that can never pass has an infinite
 * `retryAfterMs` (`inf` in text).
 *
 * The several-keys script answers every key's decision in one reply, in the order of `KEYS`: binary, one byte
 * per key giving the size of its decision (16 or 40), then the decisions one after the other; text, the
 * decisions joined by commas. One string is what a client reads fastest (no array to build).
 */

/** Where a RedisStore decision came from: the script, or the block cache. */
export type DecisionSource = 'redis' | 'block-cache'

/** A {@link Decision} that also says where it came from. */
export interface RedisDecision extends Decision {
  source: DecisionSource
}

/** The operations of a one-key script. */
export type Operation = 'consume' | 'peek' | 'refund' | 'charge'

/** Each operation's op: the letter the scripts compare, and its byte. */
const OPS: Record<Operation, { text: string; byte: number }> = {
  consume: { text: 'c', byte: 0x63 },
  peek: { text: 'p', byte: 0x70 },
  refund: { text: 'r', byte: 0x72 },
  /** Spend whatever the limit says (a settled cost): `s`. */
  charge: { text: 's', byte: 0x73 },
}

/** Every kind, in the order the several-keys script numbers them (1-based in Lua). */
export const KINDS = Object.keys(STEP_PARAMS) as readonly AlgorithmKind[]

/** How many parameter slots every item of the several-keys script has. */
export { PARAM_SLOTS }

/** An algorithm as its scripts' arguments, made once per store and algorithm. */
export interface ScriptParams {
  /** The kind's position in {@link KINDS}, from 1. */
  readonly kindIndex: number
  /** The parameters as text: `String(n)` is the shortest text that parses back to the same double. */
  readonly texts: readonly string[]
  /** Grace then the parameters, as little-endian doubles: the tail of a one-key script's binary argument. */
  readonly tail: Buffer
  /**
   * An item of the several-keys script's binary argument, its cost 0: the kind's index, the cost, then
   * {@link PARAM_SLOTS} parameter slots (those the algorithm has not, 0), as little-endian doubles.
   */
  readonly item: Buffer
}

/** The bytes of one item in the several-keys script's binary argument. */
const ITEM_BYTES = 8 * (2 + PARAM_SLOTS)

/** An algorithm's parameters as script arguments, with the store's grace (ms). */
export function scriptParams(algorithm: Algorithm, grace: number): ScriptParams {
  const values = stepParams(algorithm, 'RedisStore')
  const tail = Buffer.alloc(8 * (1 + values.length))
  tail.writeDoubleLE(grace, 0)
  for (let i = 0; i < values.length; i++) tail.writeDoubleLE(values[i]!, 8 * (i + 1))
  const kindIndex = KINDS.indexOf(algorithm.kind) + 1
  const item = Buffer.alloc(ITEM_BYTES)
  item.writeDoubleLE(kindIndex, 0)
  for (let i = 0; i < values.length; i++) item.writeDoubleLE(values[i]!, 16 + 8 * i)
  return { kindIndex, texts: values.map(String), tail, item }
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

/** One request's items for the several-keys script, decided as one, at its own time. */
export interface ItemGroup {
  readonly items: readonly ConsumeItem[]
  /** Where each item's state is, in the order of `items`. */
  readonly keys: readonly string[]
  /** Where each item's ban is, for the items with a `ban`; `undefined` when none has one. */
  readonly banKeys: readonly (string | undefined)[] | undefined
  /** The limiter's time; `undefined`: the Redis server's clock. */
  readonly now: number | undefined
}

/**
 * The keys then the ARGV of the several-keys script for `groups` (`count` items in all, whose algorithms'
 * parameters are `params`, one per item in order): one Buffer for a client with binary replies, else text.
 */
export function consumeAllArgs(
  binary: boolean,
  grace: number,
  groups: readonly ItemGroup[],
  count: number,
  params: readonly ScriptParams[],
): (string | Buffer)[] {
  const args: (string | Buffer)[] = []
  let bans = 0
  for (let g = 0; g < groups.length; g++) {
    const { keys, banKeys } = groups[g]!
    for (let i = 0; i < keys.length; i++) {
      args.push(keys[i]!)
      const banKey = banKeys?.[i]
      if (banKey !== undefined) {
        args.push(banKey)
        bans++
      }
    }
  }
  if (!binary) {
    args.push(String(grace))
    for (let g = 0, p = 0; g < groups.length; g++) {
      const { items, now } = groups[g]!
      args.push(String(items.length), now === undefined ? '' : String(now))
      for (let i = 0; i < items.length; i++, p++) {
        const texts = params[p]!.texts
        const ban = items[i]!.ban
        args.push(String(ban ? -params[p]!.kindIndex : params[p]!.kindIndex), number(items[i]!.cost))
        for (let j = 0; j < PARAM_SLOTS; j++) args.push(texts[j] ?? '')
        if (ban) args.push(String(ban.after), String(ban.withinMs), String(ban.forMs))
      }
    }
    return args
  }
  const all = Buffer.allocUnsafe(8 + 16 * groups.length + ITEM_BYTES * count + BAN_BYTES * bans)
  all.writeDoubleLE(grace, 0)
  let at = 8
  for (let g = 0, p = 0; g < groups.length; g++) {
    const { items, now } = groups[g]!
    all.writeDoubleLE(items.length, at)
    all.writeDoubleLE(now === undefined ? Number.NaN : now, at + 8)
    at += 16
    for (let i = 0; i < items.length; i++, p++, at += ITEM_BYTES) {
      params[p]!.item.copy(all, at)
      all.writeDoubleLE(items[i]!.cost, at + 8)
      const ban = items[i]!.ban
      if (ban) {
        all.writeDoubleLE(-params[p]!.kindIndex, at)
        all.writeDoubleLE(ban.after, at + ITEM_BYTES)
        all.writeDoubleLE(ban.withinMs, at + ITEM_BYTES + 8)
        all.writeDoubleLE(ban.forMs, at + ITEM_BYTES + 16)
        at += BAN_BYTES
      }
    }
  }
  args.push(all)
  return args
}

/** The bytes of an item's ban rule after its item in the several-keys script's binary argument. */
const BAN_BYTES = 24

/**
 * The sizes of a binary reply: five little-endian doubles, or two for an admission with no wait, or four for an
 * admission that holds a lease (`remaining resetMs lease units`, `concurrency`), or seven for a banned item's
 * (the five, then `bannedMs` and `bannedNow`).
 */
const REPLY_BYTES = 40
const ADMITTED_BYTES = 16
const LEASED_BYTES = 32
const BANNED_BYTES = 56

/** A lease as the release script takes it: the lease number and its units, `<lease>:<units>`. */
const leaseText = (lease: number, units: number): string => `${lease}:${units}`

/** A text field as a number; Lua prints an infinite wait as `inf`. */
const field = (text: string): number => (text === 'inf' ? Number.POSITIVE_INFINITY : Number(text))

/**
 * Parse a script's reply (little-endian doubles in a Buffer, or text) into a decision. Throws on anything
 * else: the store treats an unreadable reply as a failure.
 */
export function parseReply(reply: unknown, algorithm: Algorithm): RedisDecision {
  if (
    Buffer.isBuffer(reply) &&
    (reply.length === ADMITTED_BYTES || reply.length === REPLY_BYTES || reply.length === LEASED_BYTES)
  ) {
    return binaryDecision(reply, 0, reply.length, algorithm)
  }
  return textDecision(reply, algorithm)
}

/**
 * Parse the several-keys script's reply (the format is at the top of this file) into one decision per item.
 * Throws on anything else, a reply for another number of items included.
 */
export function parseAllReply(reply: unknown, items: readonly ConsumeItem[]): RedisDecision[] {
  const count = items.length
  const decisions: RedisDecision[] = new Array(count)
  if (Buffer.isBuffer(reply)) {
    let at = count
    for (let i = 0; i < count; i++) {
      const size = reply[i]
      if (
        (size !== ADMITTED_BYTES && size !== REPLY_BYTES && size !== LEASED_BYTES && size !== BANNED_BYTES) ||
        at + size > reply.length
      )
        break
      decisions[i] = binaryDecision(reply, at, size, items[i]!.algorithm)
      at += size
    }
    if (at === reply.length && decisions[count - 1] !== undefined) return decisions
  } else if (typeof reply === 'string') {
    const parts = reply.split(',')
    if (parts.length === count) {
      for (let i = 0; i < count; i++) decisions[i] = textDecision(parts[i], items[i]!.algorithm)
      return decisions
    }
  }
  throw new TypeError(`Unexpected reply from the consume-all script: ${String(reply).slice(0, 80)}`)
}

/** The binary decision of `size` bytes (16, 32 or 40, which the caller has checked) at `at` in `reply`. */
function binaryDecision(reply: Buffer, at: number, size: number, algorithm: Algorithm): RedisDecision {
  if (size === LEASED_BYTES) {
    return {
      allowed: true,
      limit: algorithm.limit,
      remaining: reply.readDoubleLE(at),
      resetMs: reply.readDoubleLE(at + 8),
      retryAfterMs: 0,
      delayMs: 0,
      policy: '',
      source: 'redis',
      lease: leaseText(reply.readDoubleLE(at + 16), reply.readDoubleLE(at + 24)),
    }
  }
  if (size === ADMITTED_BYTES) {
    return {
      allowed: true,
      limit: algorithm.limit,
      remaining: reply.readDoubleLE(at),
      resetMs: reply.readDoubleLE(at + 8),
      retryAfterMs: 0,
      delayMs: 0,
      policy: '',
      source: 'redis',
    }
  }
  const decision: RedisDecision = {
    allowed: reply.readDoubleLE(at) === 1,
    limit: algorithm.limit,
    remaining: reply.readDoubleLE(at + 8),
    resetMs: reply.readDoubleLE(at + 16),
    retryAfterMs: reply.readDoubleLE(at + 24),
    delayMs: reply.readDoubleLE(at + 32),
    policy: '',
    source: 'redis',
  }
  if (size === BANNED_BYTES) banned(decision, reply.readDoubleLE(at + 40), reply.readDoubleLE(at + 48) === 1)
  return decision
}

/** Mark `decision` banned for `ms` (started by it when `now`). */
function banned(decision: RedisDecision, ms: number, now: boolean): void {
  decision.bannedMs = ms
  if (now) decision.bannedNow = true
}

/**
 * A text decision, `allowed remaining resetMs retryAfterMs delayMs`, and `lease units` after them for an
 * admission that holds a lease, or `bannedMs bannedNow` for a banned item (a refusal); throws on anything else.
 */
function textDecision(reply: unknown, algorithm: Algorithm): RedisDecision {
  const fields = typeof reply === 'string' ? reply.split(' ') : []
  if ((fields.length !== 5 && fields.length !== 7) || fields.slice(1).some((f) => Number.isNaN(field(f)))) {
    throw new TypeError(`Unexpected reply from a Floodgate script: ${String(reply).slice(0, 80)}`)
  }
  if (fields.length === 7 && fields[0] === '1') {
    return {
      allowed: fields[0] === '1',
      limit: algorithm.limit,
      remaining: field(fields[1]!),
      resetMs: field(fields[2]!),
      retryAfterMs: field(fields[3]!),
      delayMs: field(fields[4]!),
      policy: '',
      source: 'redis',
      lease: `${fields[5]}:${fields[6]}`,
    }
  }
  const decision: RedisDecision = {
    allowed: fields[0] === '1',
    limit: algorithm.limit,
    remaining: field(fields[1]!),
    resetMs: field(fields[2]!),
    retryAfterMs: field(fields[3]!),
    delayMs: field(fields[4]!),
    policy: '',
    source: 'redis',
  }
  if (fields.length === 7) banned(decision, field(fields[5]!), fields[6] === '1')
  return decision
}
