import { z } from 'zod'
import { fixedWindow } from '../algorithms/fixed-window.js'
import type { Duration } from '../duration.js'
import { describeValue } from '../errors.js'
import { storeBound } from '../failure-policy.js'
import { NO_HEADERS, type PassAnswer, seconds } from '../http/answer.js'
import { callAppFunction, FunctionFailure, invalidKeyValue } from '../http/app-functions.js'
import { RateLimitRequestError } from '../http/errors.js'
import { compileHeaders, type HeaderMode, type HeadersOption, headerModes } from '../http/headers.js'
import { ipKey, parseIp } from '../http/ip.js'
import {
  compileKey,
  INVALID_KEY,
  type KeyFacts,
  type KeyFunction,
  keyValueText,
  routeText,
} from '../http/key-spec.js'
import { compileReport, type Reporter } from '../http/report.js'
import { type RequestInfo, readableRequest } from '../http/request-info.js'
import { MemoryStore } from '../stores/memory.js'
import type { Awaitable, Clock, Decision, Store } from '../types.js'
import { duration, fn, parseOptions, rateDuration, storeSchema } from '../validate.js'
import { DegradationError } from './errors.js'
import { timersSchema } from './schema-parts.js'
import { systemTimers, type Timers } from './timers.js'

// slowDown: the first `after` requests of a key in a window go at once; each later one waits `delay` ms more
// than the one before, never more than `maxDelay`, and none is ever refused. The count lives in the store
// (a fixed window), so servers sharing a store share it; a store that cannot answer delays nobody.

/** What a slow-down key counts per: as `rateLimit`'s `key`, without `'user'` (a function gives any caller). */
export type SlowDownKeyPart<N = any> = 'ip' | 'endpoint' | 'global' | KeyFunction<N>
/** One part, or several combined (`['ip', 'endpoint']`: per client per route). */
export type SlowDownKey<N = any> = SlowDownKeyPart<N> | readonly SlowDownKeyPart<N>[]

/**
 * The delay of a request past `after`, in ms, from its number in the window (`after + 1` for the first one
 * delayed); it may be async. Capped by `maxDelay`.
 */
export type DelayFunction<N = any> = (count: number, req: N, info: RequestInfo<N>) => number | Promise<number>

/** The options of `slowDown()` in every adapter, and of `createSlowDown`. */
export interface SlowDownOptions<N = any> {
  /**
   * How many requests of a key go at once in each window; the ones after it are delayed. 0: every request
   * is delayed, the first by `delay`.
   * @default 1
   * @example 5
   */
  after?: number
  /**
   * How much longer each request past `after` waits than the one before: request `n` of the window waits
   * `(n - after) x delay`. Or a function of `n` (and the request) returning the whole delay in ms, maybe
   * async; one that throws, rejects or returns something that is not a number >= 0 delays nothing, and the
   * error goes to `onError`.
   * @default 1000 (1 s)
   * @example '500ms'
   * @example (count) => 2 ** (count - 5) * 100
   */
  delay?: Duration | DelayFunction<N>
  /**
   * The longest any request is delayed. `Infinity` for no bound (as express-slow-down's default): a delayed
   * request holds its connection, so an unbounded delay lets a flood pile up open sockets. Timers cannot wait
   * longer than 2^31 - 1 ms (24.8 days), which also bounds `Infinity`.
   * @default '30s'
   * @example '10s'
   */
  maxDelay?: Duration
  /**
   * How long a window is: the count of a key starts again at each window, aligned to the clock (a window of
   * `'1m'` turns at every whole minute).
   * @default '1m'
   * @example '15m'
   */
  window?: Duration
  /**
   * What is counted per: `'ip'` (the client address as the framework decides it, IPv6 by its /64),
   * `'endpoint'` (method and route pattern), `'global'`, a function of the request (maybe async; when it
   * gives nothing, the request is counted by its IP), or an array of these.
   * @default 'ip'
   * @example ['ip', 'endpoint']
   * @example (req) => req.body?.email
   */
  key?: SlowDownKey<N>
  /**
   * Where the counts live: any store (`MemoryStore`, `RedisStore`, `PostgresStore`, ...). Servers that share
   * a store share the counts.
   * @default new MemoryStore()
   * @example new RedisStore({ client: new Redis() })
   */
  store?: Store
  /**
   * Put before every store key, so that two slow-downs on one store keep their own counts. It must not
   * contain `|`, `{` or `}`.
   * @default '' (none: keys start with `slow-down|`)
   * @example 'login'
   */
  prefix?: string
  /**
   * The prefix an IPv6 client is counted by, as on `rateLimit` (`false`: the whole address).
   * @default 64
   * @example 56
   */
  ipv6Subnet?: number | false
  /**
   * The RateLimit headers of the slow-down's window (`limit` is `after`, `remaining` the requests left before
   * delays start, the policy named `slow-down`), in the formats of `rateLimit`'s `headers`. Off by default:
   * beside a `rateLimit`, they would replace its own headers.
   * @default false
   * @example 'draft-7'
   */
  headers?: HeadersOption
  /**
   * Whether a delayed request's response says so: `Floodgate-Delay: <ms>`, the wait in whole ms.
   * @default true
   * @example false
   */
  delayHeader?: boolean
  /**
   * The longest a request waits for the store to count it; past it, the request goes at once and the
   * timeout goes to `onError`. A store that bounds its own calls (RedisStore, PostgresStore) is given it.
   * @default '500ms'
   * @example '100ms'
   */
  storeTimeout?: Duration
  /**
   * Called with what went wrong on a request (the store failed, a function failed, no client address); the
   * request goes on at once. Without it, the first error of each code is a process warning.
   * @default none
   * @example (error) => log.warn(error)
   */
  onError?: (error: unknown, req: N, info: RequestInfo<N>) => void
  /**
   * The time source of the windows, in ms since the epoch. Without it the store keeps time (the Redis
   * server's clock for a RedisStore, so servers agree); tests pass a virtual clock.
   * @default the store's clock
   * @example () => virtualNow
   */
  clock?: Clock
  /**
   * The timers the delays wait on; tests pass virtual ones and never sleep.
   * @default setTimeout / clearTimeout, unref'd
   * @example virtualTimers(clock)
   */
  timers?: Timers
}

/**
 * What the app reads of a request the slow-down counted: `req.slowDown` (Express), `request.slowDown`
 * (Fastify), `ctx.state.slowDown` (Koa). `undefined` when it was not counted (the store failed, or the client
 * address is unknown).
 *
 * @example res.json({ slowedBy: req.slowDown?.delay })
 */
export interface RequestSlowDown {
  /** `after`: the requests of a window that go at once. */
  readonly limit: number
  /** This request's number in the window (1 for the first). */
  readonly used: number
  /** Requests left in this window before delays start; never below 0. */
  readonly remaining: number
  /** Whole seconds until the window turns and the count starts again. */
  readonly reset: number
  /** How long this request was delayed, in ms (0: not delayed). */
  readonly delay: number
}

/** The request goes on (after its delay), with these headers on its response. */
export interface SlowDownPass extends PassAnswer {
  /** What the app reads; `undefined` when the request was not counted. */
  readonly slowDown: RequestSlowDown | undefined
}

/** The client went away while its request waited: nothing to send, and nothing more is done for it. */
export interface SlowDownGone {
  readonly kind: 'gone'
}

/** What the slow-down decided for one request: it goes on (maybe later), or its client left. Never refused. */
export type SlowDownOutcome = SlowDownPass | SlowDownGone

/** One request's passage through the slow-down. */
export interface SlowDownEntry {
  /** Settles when the request may go on; never rejects. Synchronous when nothing had to wait. */
  readonly outcome: Awaitable<SlowDownOutcome>
  /**
   * Call when the response has closed (Node's `res` `'close'`): a request still waiting stops waiting at once
   * (its outcome is `gone`). Safe to call more than once, and after the request went on.
   */
  leave(): void
}

/** The framework-neutral slow-down the adapters' `slowDown()` wrap. */
export interface SlowDown<N = any> {
  enter(info: RequestInfo<N>): SlowDownEntry
  /** How many requests are waiting out their delay now. */
  stats(): { waiting: number }
  /** Let every waiting request go on at once (shutdown, tests); later requests are still counted. */
  close(): void
}

/** The defaults of `slowDown`, written once. */
export const SLOW_DOWN_DEFAULTS = {
  after: 1,
  delay: 1000,
  maxDelay: '30s',
  window: '1m',
  key: 'ip',
  prefix: '',
  ipv6Subnet: 64,
  headers: false,
  delayHeader: true,
  storeTimeout: '500ms',
} as const

/** The longest a timer waits (2^31 - 1 ms); a longer `setTimeout` fires at once. */
const MAX_TIMER_MS = 2_147_483_647
/**
 * The window's quota in the store: the counter never refuses before a billion requests of one key in one
 * window. Past it the store refuses, and the request counts as one more than that: `maxDelay`.
 */
const COUNT_LIMIT = 1_000_000_000
/** The name of the slow-down's policy: its store keys start with it, and its RateLimit headers name it. */
const POLICY = 'slow-down'
const DELAY_HEADER = 'floodgate-delay'

const KEY_EXPECTED =
  "'ip', 'endpoint', 'global', a function of the request returning a key, or an array of these"
const keyPart = z.union([z.enum(['ip', 'endpoint', 'global']), fn(KEY_EXPECTED)], { error: KEY_EXPECTED })
const MODES = ['draft-6', 'draft-7', 'draft-8', 'legacy'] as const
const HEADERS_EXPECTED = `one of ${MODES.map((m) => `'${m}'`).join(', ')}, an array of one draft and 'legacy', true or false`
const PREFIX_EXPECTED = 'a string without |, { or }'
const AFTER_EXPECTED = 'a whole number >= 0'
const IPV6_EXPECTED = 'a prefix length from 1 to 128, or false'

const slowDownSchema = z.strictObject({
  after: z
    .number({ error: AFTER_EXPECTED })
    .refine((n) => Number.isSafeInteger(n) && n >= 0, { error: AFTER_EXPECTED })
    .default(SLOW_DOWN_DEFAULTS.after),
  delay: z
    .union([duration(), fn('')], {
      error: "a duration like '500ms' or '1s' (a number is ms, > 0), or a function (count, req, info) => ms",
    })
    .default(SLOW_DOWN_DEFAULTS.delay),
  maxDelay: z
    .union([z.custom<number>((v) => v === Number.POSITIVE_INFINITY), duration()], {
      error: "a duration like '10s' or a number of ms > 0, or Infinity",
    })
    .prefault(SLOW_DOWN_DEFAULTS.maxDelay),
  window: rateDuration().prefault(SLOW_DOWN_DEFAULTS.window),
  key: z
    .union([keyPart, z.array(keyPart).min(1, { error: KEY_EXPECTED })], { error: KEY_EXPECTED })
    .default(SLOW_DOWN_DEFAULTS.key),
  store: storeSchema.optional(),
  prefix: z
    .string({ error: PREFIX_EXPECTED })
    .regex(/^[^|{}]*$/, { error: PREFIX_EXPECTED })
    .default(SLOW_DOWN_DEFAULTS.prefix),
  ipv6Subnet: z
    .union(
      [
        z.literal(false),
        z.number().refine((n) => Number.isInteger(n) && n >= 1 && n <= 128, { error: IPV6_EXPECTED }),
      ],
      { error: IPV6_EXPECTED },
    )
    .default(SLOW_DOWN_DEFAULTS.ipv6Subnet),
  headers: z
    .union(
      [
        z.boolean(),
        z.enum(MODES),
        z
          .array(z.enum(MODES))
          .refine((modes) => modes.filter((m) => m !== 'legacy').length <= 1, { error: HEADERS_EXPECTED }),
      ],
      { error: HEADERS_EXPECTED },
    )
    .default(SLOW_DOWN_DEFAULTS.headers),
  delayHeader: z.boolean({ error: 'true or false' }).default(SLOW_DOWN_DEFAULTS.delayHeader),
  storeTimeout: duration().prefault(SLOW_DOWN_DEFAULTS.storeTimeout),
  onError: fn('a function (error, req, info) => void').optional(),
  clock: fn('a function returning ms').optional(),
  timers: timersSchema.optional(),
})

/** A request waiting out its delay: how to let it go on, or tell it its client left. */
interface Waiting {
  handle: unknown
  settle(outcome: SlowDownOutcome): void
  readonly passed: SlowDownPass
}

/** One request's state, shared by its outcome and its `leave`. */
interface Passage {
  gone: boolean
  waiting: Waiting | undefined
}

const GONE: SlowDownGone = Object.freeze({ kind: 'gone' })
const UNCOUNTED: SlowDownPass = Object.freeze({ kind: 'pass', headers: NO_HEADERS, slowDown: undefined })

const message = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * Create the framework-neutral slow-down the adapters' `slowDown()` wrap. Options are validated now (a
 * `RateLimitConfigError` names the option, the value and what is allowed).
 *
 * Each request is counted on the store in a fixed window per key. The first `after` go on at once; request
 * `n` past it waits `(n - after) x delay` ms (or `delay(n)`), never more than `maxDelay`. Nothing is ever
 * refused: a store that fails or is slow, a function that fails, an unknown client address all let the
 * request go on at once, reported to `onError`. A request whose client leaves while it waits stops waiting.
 *
 * @example
 * const slow = createSlowDown({ after: 5, delay: '500ms', maxDelay: '10s', window: '15m' })
 * const entry = slow.enter(info); res.once('close', entry.leave); const outcome = await entry.outcome
 */
export function createSlowDown<N = any>(options: SlowDownOptions<N> = {}): SlowDown<N> {
  const o = parseOptions(slowDownSchema, options, 'slowDown')
  const { after, window: windowMs, delayHeader } = o
  const store: Store = o.store ?? new MemoryStore()
  // A window of '500ms' is 500 here: given as a string, the factory does not warn of ms again.
  const algorithm = fixedWindow({ limit: COUNT_LIMIT, window: `${windowMs}ms` })
  store.checkAlgorithm?.(algorithm)
  const bound = storeBound(store, o.storeTimeout)
  const clock = o.clock as Clock | undefined
  const timers = (o.timers as Timers | undefined) ?? systemTimers
  const report: Reporter<N> = compileReport<N>(o.onError as SlowDownOptions<N>['onError'])
  const maxDelayMs = Math.min(o.maxDelay, MAX_TIMER_MS)
  const delayOf = compileDelay<N>(o.delay as number | DelayFunction<N>, after, maxDelayMs, report)
  const scope = `${o.prefix === '' ? '' : `${o.prefix}:`}${POLICY}|`
  const functions: KeyFunction<N>[] = []
  const key = compileKey<N>(o.key as SlowDownKey<N> as never, functions)
  const ipv6Subnet = o.ipv6Subnet === false ? 128 : o.ipv6Subnet
  const modes: HeaderMode[] = headerModes(o.headers)
  const writeHeaders = compileHeaders(modes, [{ name: POLICY, limit: after, windowMs }])
  const waiting = new Set<Waiting>()

  /** The client address as keys use it, or `undefined` when it is unknown (or could not be read). */
  function addressOf(info: RequestInfo<N>): string | undefined {
    const parsed = parseIp(info.ip)
    return parsed === undefined ? undefined : ipKey(parsed, ipv6Subnet)
  }

  /** The store key of a request, or `undefined` (reported) when its client address was needed and is unknown. */
  function storeKeyOf(info: RequestInfo<N>, ip: string | undefined, values: unknown[]): string | undefined {
    const facts: KeyFacts<N> = {
      info,
      ip,
      user: undefined,
      values: values.map((value) => keyText(value, info)),
      route: key.needsRoute ? routeText(info.route) : '*',
      plan: undefined,
    }
    const at = key.keyer(facts, scope)
    if (at === undefined) {
      report(
        new RateLimitRequestError(
          'ERR_FLOODGATE_NO_CLIENT_ADDRESS',
          `The client address of ${info.method} ${info.path} is unknown (got ${JSON.stringify(info.ip)}); the request went on without a delay rather than being counted under a shared key. Check the framework's trust-proxy setting.`,
        ),
        info,
      )
    }
    return at
  }

  function keyText(value: unknown, info: RequestInfo<N>): string | undefined {
    if (value instanceof FunctionFailure) {
      report(value.error, info)
      return undefined
    }
    const text = keyValueText(value)
    if (text !== INVALID_KEY) return text
    report(invalidKeyValue('key', value), info)
    return undefined
  }

  /** Count the request on the store; a store that throws, rejects or passes `storeTimeout` counts nothing. */
  function count(info: RequestInfo<N>, at: string, passage: Passage): Awaitable<SlowDownOutcome> {
    let decided: Awaitable<Decision>
    try {
      decided = store.consume(algorithm, at, 1, clock?.())
    } catch (error) {
      return storeFailed(error, info)
    }
    if (!(decided instanceof Promise)) return counted(decided, info, passage)
    return bound(decided).then(
      (d) => counted(d, info, passage),
      (error) => storeFailed(error, info),
    )
  }

  function storeFailed(error: unknown, info: RequestInfo<N>): SlowDownPass {
    report(
      error instanceof RateLimitRequestError
        ? error
        : new RateLimitRequestError(
            'ERR_FLOODGATE_STORE_FAILED',
            `The store failed: ${message(error)}. The request went on without a delay.`,
            { cause: error },
          ),
      info,
    )
    return UNCOUNTED
  }

  function counted(d: Decision, info: RequestInfo<N>, passage: Passage): Awaitable<SlowDownOutcome> {
    if (passage.gone) return GONE
    // Past COUNT_LIMIT the store refuses (and counts nothing): the request is one more than it holds.
    const used = d.allowed ? COUNT_LIMIT - d.remaining : COUNT_LIMIT + 1
    if (used <= after) return passOf(used, d.resetMs, 0)
    const ms = delayOf(used, info)
    if (ms instanceof Promise) return ms.then((m) => wait(passage, passOf(used, d.resetMs, m)))
    return wait(passage, passOf(used, d.resetMs, ms))
  }

  /** The pass of request `used`, as of when it goes on: its window's reset is `delay` nearer by then. */
  function passOf(used: number, resetAtCount: number, delay: number): SlowDownPass {
    const resetMs = Math.max(0, resetAtCount - delay)
    const slowDown: RequestSlowDown = {
      limit: after,
      used,
      remaining: Math.max(0, after - used),
      reset: seconds(resetMs),
      delay,
    }
    if (writeHeaders === undefined && (!delayHeader || delay === 0)) {
      return { kind: 'pass', headers: NO_HEADERS, slowDown }
    }
    const headers: Record<string, string> = {}
    if (writeHeaders !== undefined) {
      const decision: Decision = {
        allowed: true,
        limit: after,
        remaining: slowDown.remaining,
        resetMs,
        retryAfterMs: 0,
        delayMs: delay,
        policy: POLICY,
      }
      writeHeaders(headers, [decision], 0, clock?.() ?? Date.now())
    }
    if (delayHeader && delay > 0) headers[DELAY_HEADER] = String(delay)
    return { kind: 'pass', headers, slowDown }
  }

  /** Hold the request for its delay, unless its client has left; `leave` and `close` end the wait early. */
  function wait(passage: Passage, passed: SlowDownPass): Awaitable<SlowDownOutcome> {
    if (passage.gone) return GONE
    const ms = passed.slowDown!.delay
    if (ms <= 0) return passed
    return new Promise<SlowDownOutcome>((resolve) => {
      const entry: Waiting = {
        handle: undefined,
        passed,
        settle(outcome) {
          waiting.delete(entry)
          resolve(outcome)
        },
      }
      entry.handle = timers.set(() => entry.settle(passed), ms)
      waiting.add(entry)
      passage.waiting = entry
    })
  }

  function decide(request: RequestInfo<N>, passage: Passage): Awaitable<SlowDownOutcome> {
    let info = key.needsRoute ? readableRequest(request, 'route', report) : request
    if (key.needsIp) info = readableRequest(info, 'ip', report)
    const ip = key.needsIp ? addressOf(info) : undefined
    if (functions.length === 0) {
      const at = storeKeyOf(info, ip, [])
      return at === undefined ? UNCOUNTED : count(info, at, passage)
    }
    const values = functions.map((f) => callAppFunction('key', f, info))
    if (!values.some((v) => v instanceof Promise)) {
      const at = storeKeyOf(info, ip, values)
      return at === undefined ? UNCOUNTED : count(info, at, passage)
    }
    return Promise.all(values).then((settled) => {
      if (passage.gone) return GONE
      const at = storeKeyOf(info, ip, settled)
      return at === undefined ? UNCOUNTED : count(info, at, passage)
    })
  }

  return {
    enter(info) {
      const passage: Passage = { gone: false, waiting: undefined }
      return {
        outcome: decide(info, passage),
        leave() {
          passage.gone = true
          const entry = passage.waiting
          if (entry === undefined) return
          passage.waiting = undefined
          timers.clear(entry.handle)
          entry.settle(GONE)
        },
      }
    },
    stats: () => ({ waiting: waiting.size }),
    close() {
      for (const entry of [...waiting]) {
        timers.clear(entry.handle)
        entry.settle(entry.passed)
      }
    },
  }
}

/**
 * Compile `delay` to the delay of request `count` (past `after`) in whole ms, capped by `maxDelayMs`. A delay
 * function that fails or returns what is not a number >= 0 delays nothing, reported once per request.
 */
function compileDelay<N>(
  delay: number | DelayFunction<N>,
  after: number,
  maxDelayMs: number,
  report: Reporter<N>,
): (count: number, info: RequestInfo<N>) => Awaitable<number> {
  const capped = (ms: number) => Math.min(Math.ceil(ms), maxDelayMs)
  if (typeof delay === 'number') return (count) => capped((count - after) * delay)
  const settle = (value: unknown, info: RequestInfo<N>): number => {
    if (value instanceof FunctionFailure) {
      report(
        new DegradationError('ERR_FLOODGATE_FUNCTION_FAILED', value.error.message, {
          cause: value.error.cause,
          option: 'delay',
        }),
        info,
      )
      return 0
    }
    if (typeof value === 'number' && value >= 0) return capped(value) // Infinity is maxDelay
    report(
      new DegradationError(
        'ERR_FLOODGATE_INVALID_DELAY',
        `The \`delay\` function returned ${describeValue(value)}; expected a number of ms >= 0. The request went on without a delay.`,
        { option: 'delay' },
      ),
      info,
    )
    return 0
  }
  return (count, info) => {
    const value = callAppFunction('delay', (req: N, i: RequestInfo<N>) => delay(count, req, i), info)
    return value instanceof Promise ? value.then((v) => settle(v, info)) : settle(value, info)
  }
}
