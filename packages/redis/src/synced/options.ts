import type { Duration } from '@floodgate/core'
import type { Clock } from '@floodgate/core/internal'
import { duration, fn, parseOptions, positiveInt } from '@floodgate/core/internal'
import * as z from 'zod'
import type { RedisStore } from '../store.js'

/** The timers a SyncedStore schedules its syncs with; tests pass their own to drive syncs by hand. */
export interface SyncTimers {
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** What `onError` is told about a sync that failed. */
export interface SyncErrorEvent {
  /** How many keys the failed call carried; their counts are kept and sent again. */
  keys: number
  /** Whether the error was the RedisStore's time bound (the limiter's `storeTimeout`). */
  timedOut: boolean
}

/** Options of {@link SyncedStore}. */
export interface SyncedStoreOptions {
  /**
   * Where the shared totals live: a RedisStore (standalone Redis or Cluster). The SyncedStore writes the
   * RedisStore's own state for each key, decides through it near the limit, and uses its client, prefix and
   * time bound (the limiter's `storeTimeout`).
   * @example new RedisStore({ client: new Redis(process.env.REDIS_URL) })
   */
  store: RedisStore
  /**
   * How often a process sends the counts it made and reads back the totals: one sync call per Cluster slot
   * (one in all on a standalone Redis) for every key used since the last sync. Shorter is closer to exact and
   * costs more round trips.
   * @default '50ms'
   * @example '100ms'
   */
  syncEvery?: Duration
  /**
   * The share of the limit, near it, where decisions go through Redis: a process counts locally only while the
   * total it knows is below `limit x (1 - exactWithin)`; above it, every admission is decided by the
   * RedisStore's script. 0 counts locally up to the limit (the last few units still go to Redis); 0.1 makes
   * the last 10% exact.
   * @default 0
   * @example 0.1
   */
  exactWithin?: number
  /**
   * How many processes share each limit: every sync grants a process `1/processes` of what the total it read
   * leaves. `'auto'` counts them in Redis (a sorted set under the RedisStore's prefix that each process joins
   * when it is created and on every sync, and leaves on `close()`). With `'auto'`, a process that has just joined
   * lets Redis decide its requests until it has seen the same count for two sync intervals: the others do not
   * count it yet, so a share of its own would come on top of theirs.
   * @default 'auto'
   * @example 8
   */
  processes?: number | 'auto'
  /**
   * What a process admits while Redis is unreachable: `'share'`, at most its share of what was left when it last
   * synced (so all processes together stay within the limit), or `'limit'`, up to the whole limit by itself (as a
   * per-process MemoryStore would). Either way no request waits on Redis, and the counts are sent once it is back.
   * @default 'share'
   * @example 'limit'
   */
  offline?: 'share' | 'limit'
  /**
   * The most keys kept in this process. Past it, a key with nothing left to send is forgotten (a forgotten key
   * is read from Redis again when it comes back). A key whose counts are not in Redis yet is never forgotten,
   * so the keys used since the last sync may take the table past `maxKeys` until it lands.
   * @default 100_000
   * @example 1_000_000
   */
  maxKeys?: number
  /**
   * The time source, in ms, used when the limiter passes no time. It is aligned to the Redis server's clock
   * (measured on every sync), so windows start at the same instant in every process.
   * @default Date.now (read at most once per ms under load)
   * @example () => performance.timeOrigin + performance.now()
   */
  clock?: Clock
  /**
   * The timers syncs are scheduled with. The default timers are unref'd: a pending sync never keeps the
   * process alive (`close()` sends what is left).
   * @default globalThis's setTimeout and clearTimeout, unref'd
   * @example { setTimeout: (callback, ms) => queue.push(callback), clearTimeout: () => {} }
   */
  timers?: SyncTimers
  /**
   * Called with every sync that failed (an error or the RedisStore's time bound). It must not throw.
   * @default undefined (none)
   * @example (error, event) => log.warn({ err: error, ...event }, 'rate limit sync failed')
   */
  onError?: (error: Error, event: SyncErrorEvent) => void
}

const isRedisStore = (v: unknown): v is RedisStore =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as RedisStore).keyOf === 'function' &&
  typeof (v as RedisStore).consume === 'function' &&
  typeof (v as RedisStore).reset === 'function' &&
  typeof (v as RedisStore).prefix === 'string' &&
  typeof (v as RedisStore).timeoutMs === 'number' &&
  typeof (v as RedisStore).client === 'object'

const isTimers = (v: unknown): v is SyncTimers =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as SyncTimers).setTimeout === 'function' &&
  typeof (v as SyncTimers).clearTimeout === 'function'

const schema = z.strictObject({
  store: z.custom<RedisStore>(isRedisStore, { error: 'a RedisStore (new RedisStore({ client }))' }),
  syncEvery: duration().default(50),
  exactWithin: z
    .number({ error: 'a number from 0 (up to 1, excluded)' })
    .refine((n) => n >= 0 && n < 1, { error: 'a number from 0 (up to 1, excluded)' })
    .default(0),
  processes: z
    .custom<number | 'auto'>((v) => v === 'auto' || (Number.isSafeInteger(v) && (v as number) >= 1), {
      error: "'auto' or a whole number >= 1",
    })
    .default('auto'),
  offline: z.enum(['share', 'limit'], { error: "'share' or 'limit'" }).default('share'),
  maxKeys: positiveInt().default(100_000),
  clock: fn('a function returning ms').optional(),
  timers: z
    .custom<SyncTimers>(isTimers, {
      error: 'an object with setTimeout(callback, ms) and clearTimeout(handle)',
    })
    .optional(),
  onError: fn('a function (error, event) => void').optional(),
})

export type ParsedSyncedOptions = z.output<typeof schema>

/** Validate the options, or throw a `RateLimitConfigError` naming the option, the value and what is allowed. */
export function parseSyncedOptions(options: SyncedStoreOptions): ParsedSyncedOptions {
  return parseOptions(schema, options, 'SyncedStore')
}

/** Node's timers, unref'd, so that a scheduled sync never keeps the process alive. */
export const unrefTimers: SyncTimers = {
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms)
    timer.unref?.()
    return timer
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}
