import { type MetricsSink, RateLimitConfigError } from '@floodgate/core'
import {
  fn,
  metricsSinkSchema,
  parseOptions,
  positive,
  positiveInt,
  refuseMovedOptions,
  toMs,
} from '@floodgate/core/internal'
import * as z from 'zod'
import { DEFAULT_LOCATION } from './sql/location.js'
import { schemaName, tableName } from './validate.js'

/** A query as the store sends it: a named (prepared) statement, its values, rows as arrays, its own parsers. */
export interface StoreQuery {
  name: string
  text: string
  values: unknown[]
  rowMode: 'array'
  types: { getTypeParser(oid: number, format?: string): (value: string) => unknown }
}

/** A client checked out of the pool, as the store uses it. */
export interface PostgresClient {
  query(
    query: StoreQuery,
    callback: (error: Error | null | undefined, result: { rows: unknown[][] }) => void,
  ): void
}

/**
 * The `pg` Pool, as the few things the store uses: `connect(callback)` to check out a client (given back
 * with `release()`, or `release(error)` to discard a broken one), and its `'error'` event. `new Pool(...)`
 * from `pg` fits, and so does any pool with the same shape.
 */
export interface PostgresPool {
  connect(
    callback: (
      error: Error | null | undefined,
      client: PostgresClient | undefined,
      release: (error?: Error) => void,
    ) => void,
  ): void
  on(event: 'error', listener: (error: Error) => void): unknown
  removeListener(event: 'error', listener: (error: Error) => void): unknown
}

/** What `onError` is told about a failure. */
export interface PostgresStoreErrorEvent {
  /** The store method that failed (`'sweep'`: removing expired rows, on its own or when called). */
  operation: 'consume' | 'consumeAll' | 'peek' | 'refund' | 'charge' | 'reset' | 'sweep' | 'settings'
  /** The key, as the store received it (for `consumeAll`, the first item's; for `sweep`, empty). */
  key: string
  /** Whether the error was a time bound: the store's (the limiter's `storeTimeout`), or `lockTimeoutMs` inside PostgreSQL. */
  timedOut: boolean
}

/** How expired rows are swept as decisions are made. */
export interface SweepOptions {
  /**
   * Sweep after this many decisions (each item of a `consumeAll` counts), in the background, one sweep at a
   * time; when a sweep deletes a whole batch, the next one starts with the next decision.
   * @default 1000
   * @example 10_000
   */
  every?: number
  /**
   * The most rows one sweep deletes.
   * @default 1000
   * @example 5000
   */
  batch?: number
}

/** Options of {@link PostgresStore}. */
export interface PostgresStoreOptions {
  /**
   * The `pg` Pool. The store never ends it: you own it. Give it a `connectionTimeoutMillis` so that a database
   * that does not answer cannot hold its connection slots.
   * @example new Pool({ connectionString: process.env.DATABASE_URL, max: 10, connectionTimeoutMillis: 1000 })
   */
  pool: PostgresPool
  /**
   * The schema that `migrate()` created the table and functions in.
   * @default 'public'
   * @example 'rate_limits'
   */
  schema?: string
  /**
   * The table's name, as given to `migrate()`.
   * @default 'floodgate'
   * @example 'api_limits'
   */
  table?: string
  /**
   * PostgreSQL's `lock_timeout` for every decision (`SET LOCAL`), in whole ms: the most one wait for a lock
   * another session holds may take. A decision on a row someone holds waits at most twice (for the row, then
   * for the holder's transaction), so this must be below half of the store's bound (the limiter's
   * `storeTimeout`: a limiter with a shorter one is refused when it is created). Past it PostgreSQL gives up and
   * the call rejects (reported with `timedOut: true`, and the limiter's `failMode` decides) without counting as
   * an outage: the other keys go on being decided.
   * @default a quarter of the limiter's storeTimeout
   * @example 50
   */
  lockTimeoutMs?: number
  /**
   * After a timeout or a connection error, how long (ms) calls reject at once
   * (`ERR_FLOODGATE_POSTGRES_UNAVAILABLE`, and the limiter's `failMode` decides), without trying PostgreSQL.
   * @default 1000
   * @example 250
   */
  cooldownMs?: number
  /**
   * How long (ms) a row is kept after its state has become equal to a fresh one, before a sweep may delete
   * it. Keeping it longer changes no decision; it keeps a slow caller's (or a test's virtual clock's) view of
   * time from being outrun by the sweep, which goes by the database's clock.
   * @default 2000
   * @example 0
   */
  expiryGraceMs?: number
  /**
   * Wait for each decision's commit to reach the disk (PostgreSQL's `synchronous_commit` as the server sets
   * it). Off by default: decisions commit with `synchronous_commit = off`, which saves the WAL flush on every
   * decision; a crash of the database server may then lose the last fraction of a second of counts (never
   * corrupting the table). Has no effect on an `unlogged` table, which a crash empties anyway.
   * @default false
   * @example true
   */
  synchronousCommit?: boolean
  /**
   * Send the decisions asked for in the same turn of the event loop to PostgreSQL together: one statement per
   * `maxSize` items (a call of `floodgate_consume_batch`), on one pool connection, each request still decided
   * on its own (a request's policies all or none, as one; one request's refusal changes nothing of another's),
   * on the database's clock, with exact `retryAfterMs`. The statements go out once the I/O already in hand is
   * handled (`setImmediate`), with no timer; each request is answered as soon as its statement returns. A busy
   * server then spends one round trip, one transaction and one pool connection on many decisions; a decision
   * alone is sent with its own statement, as before. `true` batches up to 128 items a statement; `{ maxSize }`
   * sets the bound; `false` sends every request's statement at once, alone.
   * @default true
   * @example { maxSize: 32 }
   */
  batch?: boolean | { maxSize: number }
  /**
   * Remove expired rows as decisions are made, in bounded batches that never lock the table: `{ every,
   * batch }`, or `false` to sweep only when you call `store.sweep()` (from a cron job, say).
   * @default { every: 1000, batch: 1000 }
   * @example { every: 10_000, batch: 5000 }
   */
  sweep?: false | SweepOptions
  /**
   * Called with every PostgreSQL error or timeout (not with the calls refused at once while the circuit is
   * open). It must not throw.
   * @default undefined (none)
   * @example (error, event) => log.warn({ err: error, ...event }, 'rate limiter store failed')
   */
  onError?: (error: Error, event: PostgresStoreErrorEvent) => void
  /**
   * Where to report the store's statements (`floodgate_store_duration_seconds`, `floodgate_store_errors_total`),
   * and its circuit's state, labelled `store="postgres"` (see `docs/metrics.md`). Pass
   * the sink the limiter has.
   * @default none
   * @example prometheus({ register })
   */
  metrics?: MetricsSink
  /**
   * How often each server reads the limiters' runtime overrides (`middleware.overrides.set`) from the settings
   * table: a change made on one server is applied by every other within this interval (plus one query). One
   * query per limiter that has overrides, answering with the version row alone when nothing changed; none while
   * no limiter has overrides. The timer is unref'd and stops when the store is closed.
   * @default '1s'
   * @example '250ms'
   */
  settingsInterval?: number | string
}

const isPool = (v: unknown): v is PostgresPool =>
  typeof v === 'object' &&
  v !== null &&
  ['connect', 'on', 'removeListener'].every((m) => typeof (v as Record<string, unknown>)[m] === 'function')
const wholeMs = (expected: string) =>
  z.number({ error: expected }).refine((n) => Number.isSafeInteger(n) && n >= 0, { error: expected })
const LOCK_TIMEOUT = "a whole number of ms >= 1, below half of the limiter's storeTimeout"

const schema = z.strictObject({
  pool: z.custom<PostgresPool>(isPool, { error: "a pg Pool (new Pool() from 'pg')" }),
  schema: schemaName().default(DEFAULT_LOCATION.schema),
  table: tableName().default(DEFAULT_LOCATION.table),
  lockTimeoutMs: positiveInt(LOCK_TIMEOUT).optional(),
  cooldownMs: positive('a number of ms > 0').default(1000),
  expiryGraceMs: wholeMs('a whole number of ms >= 0').default(2000),
  synchronousCommit: z.boolean({ error: 'true or false' }).default(false),
  batch: z
    .union([z.boolean(), z.strictObject({ maxSize: positiveInt() })], {
      error: 'true, false or { maxSize } (maxSize a whole number >= 1)',
    })
    .default(true),
  sweep: z
    .union(
      [
        z.literal(false),
        z.strictObject({
          every: positiveInt().default(1000),
          batch: positiveInt().default(1000),
        }),
      ],
      { error: 'false or { every, batch }' },
    )
    .default({ every: 1000, batch: 1000 }),
  onError: fn('a function').optional(),
  metrics: metricsSinkSchema.optional(),
  settingsInterval: z
    .custom<number | string>((v) => toMs(v) !== undefined, {
      error: "a duration like '250ms', '1s' or a number of ms > 0",
    })
    .transform((v) => toMs(v) as number)
    .default(1000),
})

export type ParsedOptions = Omit<z.output<typeof schema>, 'onError'> & {
  onError: PostgresStoreOptions['onError']
}

/**
 * Validate the options, or throw a `RateLimitConfigError` naming the option, the value and what is allowed;
 * `failMode`, `fallback` and `timeoutMs` are refused with where each went (the limiter's options).
 */
export function parseStoreOptions(options: PostgresStoreOptions): ParsedOptions {
  refuseMovedOptions(options, 'PostgresStore')
  const parsed = parseOptions(schema, options, 'PostgresStore')
  return { ...parsed, onError: parsed.onError as PostgresStoreOptions['onError'] }
}

/**
 * The `lock_timeout` under a store bound of `timeoutMs`: `lockTimeoutMs` when given (refused unless below half
 * of the bound: a decision may wait for a lock twice), else a quarter of the bound.
 */
export function lockTimeoutUnder(timeoutMs: number, lockTimeoutMs: number | undefined): number {
  if (lockTimeoutMs === undefined) return Math.max(1, Math.floor(timeoutMs / 4))
  if (lockTimeoutMs * 2 >= timeoutMs) {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      'PostgresStore.lockTimeoutMs',
      lockTimeoutMs,
      `a whole number of ms >= 1, below half of the limiter's storeTimeout (${timeoutMs} ms)`,
    )
  }
  return lockTimeoutMs
}
