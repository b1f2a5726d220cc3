import type { MetricsSink } from '@floodgate/core'
import {
  metricsSinkSchema,
  parseOptions,
  positive,
  positiveInt,
  refuseMovedOptions,
  toMs,
} from '@floodgate/core/internal'
import * as z from 'zod'
import { clientKind, type RedisClient } from './clients/index.js'

export type { RedisClient }

/** What `onError` is told about a failure. */
export interface RedisStoreErrorEvent {
  /** The store method that failed. */
  operation: 'consume' | 'consumeAll' | 'peek' | 'refund' | 'charge' | 'reset' | 'settings'
  /** The key, as the store received it (for `consumeAll`, the first item's). */
  key: string
  /** Whether the error was the store's time bound (the limiter's `storeTimeout`). */
  timedOut: boolean
}

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /**
   * The Redis client, standalone or Cluster: ioredis (`new Redis(url)`, `new Redis.Cluster(nodes)`) or
   * node-redis (`createClient()`, `createCluster()`, connected). The store never closes it: you own it. It
   * is adapted once, when the store is created, by what it offers (never by class name): ioredis's
   * `evalsha`, `eval` and `del` (and `status`, `isCluster`); node-redis's `sendCommand`, `isReady` and
   * `isOpen` (a Cluster also has `nodeClient`). Both get decisions back as 40 binary bytes.
   * @example new Redis(process.env.REDIS_URL, { enableAutoPipelining: true })
   * @example new Redis.Cluster([{ host: '10.0.0.1', port: 6379 }], { enableAutoPipelining: true })
   * @example await createClient({ url: process.env.REDIS_URL, disableOfflineQueue: true }).connect()
   * @example await createCluster({ rootNodes: [{ url: 'redis://10.0.0.1:6379' }] }).connect()
   */
  client: RedisClient
  /**
   * Put before every key: `prefix:{key}:algorithm`. It must not contain `{` or `}` (the key's hash tag
   * follows it).
   * @default 'floodgate'
   * @example 'rl:api'
   */
  prefix?: string
  /**
   * After a timeout or a connection error, how long (ms) calls reject at once (`ERR_FLOODGATE_REDIS_UNAVAILABLE`,
   * and the limiter's `failMode` decides), without trying Redis; afterwards Redis is tried again as soon as the
   * client is connected.
   * @default 1000
   * @example 250
   */
  cooldownMs?: number
  /**
   * Refuse a key locally, with no round trip, after Redis refused it, until its `retryAfterMs` has passed.
   * Off by default. `true` keeps up to 10,000 keys; `{ maxKeys }` sets the bound. A key over 256 characters
   * is never kept (Redis decides it), so an entry is under 1 KB whatever keys callers send. A refund or reset
   * made through this store clears the key; one made by another process is seen when the entry runs out.
   * @default false
   * @example { maxKeys: 50_000 }
   */
  blockCache?: boolean | { maxKeys: number }
  /**
   * Send the decisions asked for in the same turn of the event loop to Redis together: one script call per
   * Cluster slot (per `maxSize` items), each request still decided on its own (a request's policies all or
   * none, as one; one request's refusal changes nothing of another's), on the server's clock, with exact
   * `retryAfterMs`. The calls go out once the I/O already in hand is handled (`setImmediate`), with no timer;
   * each request is answered as soon as its call returns. A busy server sends Redis few, larger calls (less
   * Redis and client CPU per decision); a decision alone is sent as before. `true` batches up to 128 items a
   * call; `{ maxSize }` sets the bound; `false` sends every request's call at once, alone.
   * @default true
   * @example { maxSize: 64 }
   */
  batch?: boolean | { maxSize: number }
  /**
   * How long (ms), at least, a key is kept after its state has become equal to a fresh one. A token bucket's,
   * leaky bucket's or GCRA's key is kept at most a grace plus the longer of the grace and the time its state
   * last needed to become fresh past that moment, so that most writes keep its TTL instead of setting a new
   * one. Expiring later changes no decision; it keeps a slow caller's (or a test's virtual clock's) view of
   * time from being outrun by Redis's real-time expiry.
   * @default 2000
   * @example 0
   */
  expiryGraceMs?: number
  /**
   * Called with every Redis error or timeout (not with the calls refused at once while the circuit is open).
   * It must not throw.
   * @default undefined (none)
   * @example (error, event) => log.warn({ err: error, ...event }, 'rate limiter store failed')
   */
  onError?: (error: Error, event: RedisStoreErrorEvent) => void
  /**
   * Where to report the store's calls to Redis (`floodgate_store_duration_seconds`, `floodgate_store_errors_total`),
   * its circuit's state and its block-cache hits, labelled `store="redis"` (see
   * `docs/metrics.md`). Pass the sink the limiter has.
   * @default none
   * @example prometheus({ register })
   */
  metrics?: MetricsSink
  /**
   * How often each server reads the limiters' runtime overrides (`middleware.overrides.set`) from Redis: a change
   * made on one server is applied by every other within this interval (plus one round trip). A read is one
   * script call per limiter that has overrides, answering with a version alone when nothing changed; no read at
   * all while no limiter has overrides. The timer is unref'd and stops when the store is closed.
   * @default '1s'
   * @example '250ms'
   */
  settingsInterval?: number | string
}

const wholeMs = (expected: string) =>
  z.number({ error: expected }).refine((n) => Number.isSafeInteger(n) && n >= 0, { error: expected })

const schema = z.strictObject({
  client: z.custom<RedisClient>((v) => clientKind(v) !== undefined, {
    error:
      'an ioredis client (new Redis(url), new Redis.Cluster(nodes)) or a node-redis client (createClient(), createCluster())',
  }),
  prefix: z
    .string({ error: 'a non-empty string without { or }' })
    .regex(/^[^{}]+$/, { error: 'a non-empty string without { or }' })
    .default('floodgate'),
  cooldownMs: positive('a number of ms > 0').default(1000),
  blockCache: z
    .union(
      [
        z.boolean(),
        z.strictObject({
          maxKeys: positiveInt(),
        }),
      ],
      { error: 'true, false or { maxKeys }' },
    )
    .default(false),
  batch: z
    .union([z.boolean(), z.strictObject({ maxSize: positiveInt() })], {
      error: 'true, false or { maxSize } (maxSize a whole number >= 1)',
    })
    .default(true),
  expiryGraceMs: wholeMs('a whole number of ms >= 0').default(2000),
  onError: z
    .custom<(error: Error, event: RedisStoreErrorEvent) => void>((v) => typeof v === 'function', {
      error: 'a function',
    })
    .optional(),
  metrics: metricsSinkSchema.optional(),
  settingsInterval: z
    .custom<number | string>((v) => toMs(v) !== undefined, {
      error: "a duration like '250ms', '1s' or a number of ms > 0",
    })
    .transform((v) => toMs(v) as number)
    .default(1000),
})

export type ParsedOptions = z.output<typeof schema>

/**
 * Validate the options, or throw a `RateLimitConfigError` naming the option, the value and what is allowed;
 * `failMode`, `fallback` and `timeoutMs` are refused with where each went (the limiter's options).
 */
export function parseStoreOptions(options: RedisStoreOptions): ParsedOptions {
  refuseMovedOptions(options, 'RedisStore')
  return parseOptions(schema, options, 'RedisStore')
}
