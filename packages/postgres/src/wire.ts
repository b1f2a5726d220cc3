import { createHash } from 'node:crypto'
import type { Algorithm, ConsumeItem, Decision } from '@floodgate/core'
import type { FailSource } from '@floodgate/core/internal'
import { PARAM_SLOTS, stepParams } from '@floodgate/core/internal'
import type { StoreQuery } from './options.js'
import { type Location, qualified } from './sql/location.js'
import { storedKey } from './stored-key.js'

/** Where a PostgresStore decision came from: the database, or a fail mode. */
export type DecisionSource = 'postgres' | FailSource

/** A {@link Decision} that also says where it came from. */
export interface PostgresDecision extends Decision {
  source: DecisionSource
}

/** The operations of a one-key decision, as the SQL spells them. */
export type Operation = 'consume' | 'peek' | 'refund' | 'release' | 'charge'
export const OPS: Record<Operation, string> = {
  consume: 'c',
  peek: 'p',
  refund: 'r',
  release: 'l',
  charge: 's',
}

/**
 * An algorithm's parameters for its step function, in core's one order for every store, `null` in unused
 * slots. `pg` sends a number as `String(n)`, the shortest text that parses back to the same double, so the SQL
 * computes with exactly the numbers the TypeScript does.
 */
export function stepArgs(algorithm: Algorithm): (number | null)[] {
  const params: (number | null)[] = stepParams(algorithm, 'PostgresStore')
  while (params.length < PARAM_SLOTS) params.push(null)
  return params
}

/** What every call passes besides its key and algorithm: the store's settings, as the SQL takes them. */
export interface CallSettings {
  /** ms a row is kept past the moment its state is fresh again. */
  grace: number
  /** `lock_timeout` in ms, as text. */
  lockTimeout: string
  /** Whether commits wait for the WAL flush. */
  durable: boolean
}

/** The values of a `floodgate_decide` call, in its parameters' order. */
export function decideValues(call: {
  operation: Operation
  algorithm: Algorithm
  key: string
  cost: number
  now: number | undefined
  params: readonly (number | null)[]
  settings: CallSettings
}): unknown[] {
  const { algorithm, settings } = call
  return [
    storedKey(call.key),
    algorithm.id,
    algorithm.kind,
    OPS[call.operation],
    call.now ?? null,
    call.cost,
    settings.grace,
    settings.lockTimeout,
    settings.durable,
    ...call.params,
  ]
}

/** The values of a `floodgate_consume_all` call: one array per column, the parameters flattened. */
export function consumeAllValues(call: {
  items: readonly ConsumeItem[]
  now: number | undefined
  paramsOf: (algorithm: Algorithm) => readonly (number | null)[]
  settings: CallSettings
}): unknown[] {
  const { items, settings } = call
  return [
    items.map((item) => storedKey(item.key)),
    items.map((item) => item.algorithm.id),
    items.map((item) => item.algorithm.kind),
    items.map((item) => item.cost),
    items.flatMap((item) => call.paramsOf(item.algorithm)),
    call.now ?? null,
    settings.grace,
    settings.lockTimeout,
    settings.durable,
  ]
}

/** One request of a batch: its items (decided as one) and its time (`undefined`: the database's clock). */
export interface ItemGroup {
  readonly items: readonly ConsumeItem[]
  readonly now: number | undefined
}

/**
 * The values of a `floodgate_consume_batch` call for `groups` (`count` items in all): each group's size and
 * time, then one array per column over every item, the parameters flattened.
 */
export function consumeBatchValues(call: {
  groups: readonly ItemGroup[]
  count: number
  paramsOf: (algorithm: Algorithm) => readonly (number | null)[]
  settings: CallSettings
}): unknown[] {
  const { groups, count, settings } = call
  const sizes: number[] = new Array(groups.length)
  const nows: (number | null)[] = new Array(groups.length)
  const keys: string[] = new Array(count)
  const algorithms: string[] = new Array(count)
  const kinds: string[] = new Array(count)
  const costs: number[] = new Array(count)
  const params: (number | null)[] = new Array(count * PARAM_SLOTS)
  for (let g = 0, at = 0; g < groups.length; g++) {
    const { items, now } = groups[g]!
    sizes[g] = items.length
    nows[g] = now ?? null
    for (let i = 0; i < items.length; i++, at++) {
      const { algorithm, key, cost } = items[i]!
      keys[at] = storedKey(key)
      algorithms[at] = algorithm.id
      kinds[at] = algorithm.kind
      costs[at] = cost
      const own = call.paramsOf(algorithm)
      for (let p = 0; p < PARAM_SLOTS; p++) params[at * PARAM_SLOTS + p] = own[p]!
    }
  }
  return [
    sizes,
    nows,
    keys,
    algorithms,
    kinds,
    costs,
    params,
    settings.grace,
    settings.lockTimeout,
    settings.durable,
  ]
}

/**
 * The values of a `floodgate_consume_banned` call: a batch's (see {@link consumeBatchValues}), then each item's
 * ban as three numbers, `after withinMs forMs` (0 0 0 for an item without one), before the settings.
 */
export function consumeBannedValues(call: Parameters<typeof consumeBatchValues>[0]): unknown[] {
  const values = consumeBatchValues(call)
  const bans: number[] = new Array(call.count * 3)
  for (let g = 0, at = 0; g < call.groups.length; g++) {
    const items = call.groups[g]!.items
    for (let i = 0; i < items.length; i++, at += 3) {
      const ban = items[i]!.ban
      bans[at] = ban?.after ?? 0
      bans[at + 1] = ban?.withinMs ?? 0
      bans[at + 2] = ban?.forMs ?? 0
    }
  }
  values.splice(7, 0, bans)
  return values
}

/** Whether any item of `groups` carries a ban: its statement then goes to `floodgate_consume_banned`. */
export function hasBans(groups: readonly ItemGroup[]): boolean {
  for (let g = 0; g < groups.length; g++) {
    const items = groups[g]!.items
    for (let i = 0; i < items.length; i++) if (items[i]!.ban !== undefined) return true
  }
  return false
}

// The sixth, an admission's written `next_state[1]`, is the lease number of a `concurrency` admission.
const DECISION_COLUMNS =
  'allowed, remaining, reset_ms, retry_after_ms, delay_ms, CASE WHEN allowed AND write THEN next_state[1] END'

/** The store's statements for one location, each prepared once per connection (a named statement). */
export interface Statements {
  readonly decide: Pick<StoreQuery, 'name' | 'text'>
  readonly consumeAll: Pick<StoreQuery, 'name' | 'text'>
  readonly consumeBatch: Pick<StoreQuery, 'name' | 'text'>
  readonly consumeBanned: Pick<StoreQuery, 'name' | 'text'>
  readonly reset: Pick<StoreQuery, 'name' | 'text'>
  readonly sweep: Pick<StoreQuery, 'name' | 'text'>
}

/** A statement's name: short (PostgreSQL keeps 63 bytes of it) and different for any other text. */
const named = (text: string) => ({
  name: `floodgate_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`,
  text,
})
const placeholders = (n: number) => Array.from({ length: n }, (_, i) => `$${i + 1}`).join(', ')

export function statements(location: Location): Statements {
  return {
    decide: named(`SELECT ${DECISION_COLUMNS} FROM ${qualified(location, '_decide')}(${placeholders(13)})`),
    consumeAll: named(
      `SELECT ${DECISION_COLUMNS} FROM ${qualified(location, '_consume_all')}(${placeholders(9)}) WITH ORDINALITY ORDER BY ordinality`,
    ),
    consumeBatch: named(
      `SELECT ${DECISION_COLUMNS} FROM ${qualified(location, '_consume_batch')}(${placeholders(10)}) WITH ORDINALITY ORDER BY ordinality`,
    ),
    consumeBanned: named(
      `SELECT allowed, remaining, reset_ms, retry_after_ms, delay_ms, lease, banned_ms, banned_now FROM ${qualified(location, '_consume_banned')}(${placeholders(11)}) WITH ORDINALITY ORDER BY ordinality`,
    ),
    reset: named(`SELECT FROM ${qualified(location, '_reset')}($1, $2, $3, $4)`),
    sweep: named(`SELECT ${qualified(location, '_sweep')}($1, $2) AS deleted`),
  }
}

/**
 * The store's own parsers for what its statements return (booleans, doubles, integers), so a pool whose
 * type parsers were changed (`pg.types.setTypeParser`) still gives the store what it expects. A double
 * arrives as PostgreSQL's shortest exact text (`extra_float_digits` >= 1, the default since PostgreSQL 12),
 * `Infinity` included, which `Number` reads back to the same double.
 */
export const TYPES: StoreQuery['types'] = {
  getTypeParser(oid) {
    if (oid === 16) return (text) => text === 't'
    if (oid === 701 || oid === 23) return Number
    return (text) => text
  },
}

/**
 * A decision from a row of `allowed, remaining, reset_ms, retry_after_ms, delay_ms` and the lease number of a
 * `concurrency` admission (else a number the decision does not use, or `NULL`), and `banned_ms, banned_now`
 * from `floodgate_consume_banned`; throws on anything else.
 */
export function parseRow(row: unknown, algorithm: Algorithm): PostgresDecision {
  if (
    !Array.isArray(row) ||
    (row.length !== 6 && !(row.length === 8 && typeof row[7] === 'boolean')) ||
    typeof row[0] !== 'boolean' ||
    row.slice(1, 5).some((n) => typeof n !== 'number' || Number.isNaN(n))
  ) {
    throw new TypeError(`Unexpected row from a Floodgate function: ${JSON.stringify(row)?.slice(0, 80)}`)
  }
  const [allowed, remaining, resetMs, retryAfterMs, delayMs] = row as [
    boolean,
    number,
    number,
    number,
    number,
  ]
  const decision: PostgresDecision = {
    allowed,
    limit: algorithm.limit,
    remaining,
    resetMs,
    retryAfterMs,
    delayMs,
    policy: '',
    source: 'postgres',
  }
  if (allowed && algorithm.kind === 'concurrency' && typeof row[5] === 'number')
    decision.lease = String(row[5])
  if (row.length === 8 && (row[6] as number) > 0) {
    decision.bannedMs = row[6] as number
    if (row[7] === true) decision.bannedNow = true
  }
  return decision
}
