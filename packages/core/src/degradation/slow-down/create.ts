import { fixedWindow } from '../../algorithms/fixed-window.js'
import { storeBound } from '../../failure-policy.js'
import { NO_HEADERS, seconds } from '../../http/answer.js'
import { callAppFunction, FunctionFailure, invalidKeyValue } from '../../http/app-functions.js'
import { RateLimitRequestError } from '../../http/errors.js'
import { compileHeaders, type HeaderMode, headerModes } from '../../http/headers.js'
import { ipKey, parseIp } from '../../http/ip.js'
import {
  compileKey,
  INVALID_KEY,
  type KeyFacts,
  type KeyFunction,
  keyValueText,
  routeText,
} from '../../http/key-spec.js'
import { compileReport, type Reporter } from '../../http/report.js'
import { type RequestInfo, readableRequest } from '../../http/request-info.js'
import { MemoryStore } from '../../stores/memory.js'
import type { Awaitable, Clock, Decision, Store } from '../../types.js'
import { parseOptions } from '../../validate.js'
import { systemTimers, type Timers } from '../timers.js'
import { compileDelay } from './delay.js'
import type { DelayFunction, SlowDownKey, SlowDownOptions } from './options.js'
import type {
  RequestSlowDown,
  SlowDownEntry,
  SlowDownGone,
  SlowDownOutcome,
  SlowDownPass,
} from './outcome.js'
import { slowDownSchema } from './schema.js'

// slowDown: the first `after` requests of a key in a window go at once; each later one waits `delay` ms more
// than the one before, never more than `maxDelay`, and none is ever refused. The count lives in the store
// (a fixed window), so servers sharing a store share it; a store that cannot answer delays nobody.

/** The framework-neutral slow-down the adapters' `slowDown()` wrap. */
export interface SlowDown<N = any> {
  enter(info: RequestInfo<N>): SlowDownEntry
  /** How many requests are waiting out their delay now. */
  stats(): { waiting: number }
  /** Let every waiting request go on at once (shutdown, tests); later requests are still counted. */
  close(): void
}

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
