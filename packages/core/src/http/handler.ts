import { slidingWindowCounter } from '../algorithms/index.js'
import { consumeAll, mostRestrictiveIndex } from '../consume-all.js'
import { RateLimitCostError } from '../errors.js'
import { boundKey, MAX_KEY_LENGTH } from '../keys.js'
import { checkCost } from '../limiter.js'
import { MemoryStore } from '../stores/memory.js'
import type { Algorithm, Clock, ConsumeItem, Decision, Store } from '../types.js'
import { parseOptions } from '../validate.js'
import { type AllowList, compileAllowList } from './allow-list.js'
import { RateLimitRequestError, type RateLimitRequestErrorCode } from './errors.js'
import { compileHeaders, type HeaderWriter, headerModes, seconds } from './headers.js'
import { ipKey, parseIp } from './ip.js'
import { compileKey, type KeyContext, type Keyer, keyNeeds, keyValueText } from './keys.js'
import {
  defaultName,
  type LimitedResponse,
  type RateLimitOptions,
  rateLimitOptionsSchema,
} from './options.js'
import type { RequestInfo } from './request-info.js'
import {
  compileBody,
  JSON_TYPE,
  NO_ADDRESS_BODY,
  PROBLEM_TYPE,
  statusTitle,
  UNAVAILABLE_BODY,
} from './responses.js'

/** What the limiter decided for one request, for the adapter to write out. A denial is a value. */
export interface Outcome {
  /** Whether the request proceeds (in dry run, always). */
  allowed: boolean
  /** Whether a policy refused it (also in dry run, where it proceeds anyway). */
  limited: boolean
  /** Whether it was not counted at all (`skip`, `allowList`). */
  skipped: boolean
  /** The status to answer with when `allowed` is false (429 by default); 0 when the request proceeds. */
  status: number
  /** Headers to set on the response, whether it proceeds or not. */
  headers: Record<string, string>
  /** The body to send when `allowed` is false. */
  body: string | undefined
  /** The body's content type when `allowed` is false. */
  contentType: string | undefined
  /** How long the request waited (shaping) before it proceeds; the handler has already waited. */
  delayMs: number
  /** One decision per policy, in the order of `limits`. Empty when skipped or undecided. */
  decisions: Decision[]
  /** The decision the headers report: the refusal, or the policy closest to its limit. */
  decision: Decision | undefined
  /** What went wrong when the request could not be decided (it then follows `failMode`). */
  error: unknown
  /** What was spent, for refunds; `undefined` when nothing was (or it was given back). */
  items: ConsumeItem[] | undefined
  /**
   * The outcome of an earlier limiter on the same request (an app-wide one before a route's), when the
   * adapter passed it to `handle`. If a later limiter refuses the request, what the earlier ones spent is
   * given back: a refused request spends nothing anywhere.
   */
  previous: Outcome | undefined
  /** The limiter that spent `items`, to give them back. */
  owner: Pick<RateLimitHandler, 'release'> | undefined
}

/** The framework-neutral rate limiter behind every adapter. */
export interface RateLimitHandler<N = any> {
  /**
   * Decide a request. Never rejects: errors follow `failMode` and go to `onError`. Adapters pass the outcome
   * of an earlier limiter on the same request as `previous` (they keep it on the request): when this one
   * refuses, what the earlier ones spent is given back; when it skips, `previous` still speaks for the
   * request and is returned.
   */
  handle(request: RequestInfo<N>, previous?: Outcome): Promise<Outcome>
  /** Give back everything `outcome` and the outcomes before it spent (once; safe to call again). */
  release(outcome: Outcome): void
  /** Whether `complete` has work to do (`skipFailedRequests` or `skipSuccessfulRequests`): adapters listen for the response's end only then. */
  readonly refunds: boolean
  /** Call when the response has finished, with its status (0 when the connection closed first): refunds per `skipFailedRequests` / `skipSuccessfulRequests`. Safe to call twice. */
  complete(outcome: Outcome, status: number, request?: RequestInfo<N>): void
  /** The store the policies live in. */
  readonly store: Store
  /** The options this handler was created with (adapters merge per-route options over them). */
  readonly options: RateLimitOptions<N>
}

interface Policy {
  readonly name: string
  readonly algorithm: Algorithm
  readonly keyer: Keyer
  readonly prefix: string
  readonly cost: number
  readonly costOf: ((req: any, info: any) => number) | undefined
}

const SKIPPED: Outcome = outcome(
  true,
  false,
  true,
  0,
  {},
  undefined,
  undefined,
  0,
  [],
  undefined,
  undefined,
  undefined,
)
const SKIPPED_PROMISE = Promise.resolve(SKIPPED)

function outcome(
  allowed: boolean,
  limited: boolean,
  skipped: boolean,
  status: number,
  headers: Record<string, string>,
  body: string | undefined,
  contentType: string | undefined,
  delayMs: number,
  decisions: Decision[],
  decision: Decision | undefined,
  error: unknown,
  items: ConsumeItem[] | undefined,
): Outcome {
  return {
    allowed,
    limited,
    skipped,
    status,
    headers,
    body,
    contentType,
    delayMs,
    decisions,
    decision,
    error,
    items,
    previous: undefined,
    owner: undefined,
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Create the framework-neutral rate limiter an adapter wraps. Options are validated now: an invalid one
 * throws a `RateLimitConfigError` naming the option, the value and what is allowed.
 *
 * With no options: 100 requests a minute per IP, sliding window counter, in-memory store, `draft-6` headers.
 *
 * @example
 * const limiter = createRateLimitHandler({ limit: 100, window: '1m' })
 * const outcome = await limiter.handle({ ip, method, route, path, headers, native: req })
 * if (!outcome.allowed) send(outcome.status, outcome.headers, outcome.body)
 */
export function createRateLimitHandler<N = any>(options: RateLimitOptions<N> = {}): RateLimitHandler<N> {
  const o = parseOptions(rateLimitOptionsSchema, options, 'rateLimit') as RateLimitOptions<N> & {
    window?: number
    storeTimeout?: number | false
  }
  const store: Store = o.store ?? new MemoryStore()
  const clock: Clock | undefined = o.clock
  const prefix = o.prefix ? `${o.prefix}:` : ''
  const specs = o.limits ?? [
    {
      name: o.name,
      key: o.key,
      algorithm: o.algorithm ?? slidingWindowCounter({ limit: o.limit ?? 100, window: o.window ?? 60_000 }),
    },
  ]
  const topCost = o.cost ?? 1
  const policies: Policy[] = specs.map((spec) => {
    const key = spec.key ?? 'ip'
    const name = spec.name ?? defaultName(spec.key)
    const cost = spec.cost ?? topCost
    const id = spec.algorithm.id
    return {
      name,
      algorithm: spec.algorithm,
      keyer: compileKey(key),
      prefix: `${prefix}${name}|${id}|`,
      cost: typeof cost === 'number' ? cost : 1,
      costOf: typeof cost === 'function' ? cost : undefined,
    }
  })
  const count = policies.length
  const names = policies.map((p) => p.name)
  const needs = specs.map((s) => keyNeeds(s.key ?? 'ip'))
  const allowList: AllowList | undefined =
    o.allowList && o.allowList.length > 0 ? compileAllowList(o.allowList) : undefined
  const needsIp = allowList !== undefined || needs.some((n) => n.ip)
  const userOf = needs.some((n) => n.user) ? o.user : undefined
  const ipv6Subnet = o.ipv6Subnet === false ? 128 : (o.ipv6Subnet ?? 64)
  const writeHeaders: HeaderWriter | undefined = compileHeaders(
    headerModes(o.headers ?? 'draft-6'),
    policies.map((p) => ({ name: p.name, limit: p.algorithm.limit, windowMs: p.algorithm.windowMs })),
  )
  const needsNow = writeHeaders !== undefined && [o.headers].flat().includes('legacy')
  const dryRun = o.dryRun === true
  const closed = o.failMode === 'closed'
  const status = o.statusCode ?? 429
  const contentType = o.format === 'problem+json' ? PROBLEM_TYPE : JSON_TYPE
  const bodyOf = compileBody(o.format ?? 'json', status, statusTitle(status))
  const message = o.message
  const sleep = o.sleep ?? defaultSleep
  const timeoutMs = o.storeTimeout === false ? undefined : (o.storeTimeout ?? 5_000)
  const { skip, onLimited, onError, handler: custom } = o
  const skipFailed = o.skipFailedRequests === true
  const skipSuccessful = o.skipSuccessfulRequests === true
  const warned = new Set<string>()

  function report(error: unknown, info: RequestInfo<N> | undefined): void {
    if (onError) {
      try {
        onError(error, info?.native as N, info as RequestInfo<N>)
      } catch {
        // A failing error hook must not fail the request.
      }
      return
    }
    const code = (error as { code?: string } | null)?.code ?? 'ERR_FLOODGATE_STORE_FAILED'
    if (warned.has(code)) return
    warned.add(code)
    process.emitWarning(
      `@floodgate: ${error instanceof Error ? error.message : String(error)} (reported once; pass onError to see every one)`,
      { type: 'FloodgateWarning', code },
    )
  }

  function failed(error: unknown, info: RequestInfo<N>): Outcome {
    report(error, info)
    if (!closed || dryRun) {
      return outcome(true, false, false, 0, {}, undefined, undefined, 0, [], undefined, error, undefined)
    }
    const headers = { 'retry-after': '1', 'cache-control': 'no-store' }
    return outcome(
      false,
      false,
      false,
      503,
      headers,
      UNAVAILABLE_BODY,
      JSON_TYPE,
      0,
      [],
      undefined,
      error,
      undefined,
    )
  }

  function noAddress(info: RequestInfo<N>): Outcome {
    const error = new RateLimitRequestError(
      'ERR_FLOODGATE_NO_CLIENT_ADDRESS',
      `The client address of ${info.method} ${info.path} is unknown (got ${JSON.stringify(info.ip)}); the request is refused rather than counted under a shared key. Check the framework's trust-proxy setting.`,
    )
    report(error, info)
    if (dryRun)
      return outcome(true, false, false, 0, {}, undefined, undefined, 0, [], undefined, error, undefined)
    const headers = { 'cache-control': 'no-store' }
    return outcome(
      false,
      false,
      false,
      500,
      headers,
      NO_ADDRESS_BODY,
      JSON_TYPE,
      0,
      [],
      undefined,
      error,
      undefined,
    )
  }

  function withTimeout<T>(promise: Promise<T>): Promise<T> {
    if (timeoutMs === undefined) return promise
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new RateLimitRequestError(
            'ERR_FLOODGATE_STORE_TIMEOUT',
            `The store did not answer within ${timeoutMs} ms`,
          ),
        )
      }, timeoutMs)
      timer.unref?.()
      promise.then(
        (value) => {
          clearTimeout(timer)
          resolve(value)
        },
        (error) => {
          clearTimeout(timer)
          reject(error)
        },
      )
    })
  }

  function finish(
    raw: Decision | Decision[],
    items: ConsumeItem[],
    info: RequestInfo<N>,
  ): Outcome | Promise<Outcome> {
    const decisions = Array.isArray(raw) ? raw : [raw]
    let delayMs = 0
    for (let i = 0; i < count; i++) {
      const d = decisions[i]!
      d.policy = names[i]!
      if (d.delayMs > delayMs) delayMs = d.delayMs
    }
    const chosen = mostRestrictiveIndex(decisions)
    const allowed = decisions[chosen]!.allowed // a refusal is chosen whenever there is one
    const decision = decisions[chosen]!
    const headers: Record<string, string> = {}
    if (writeHeaders) writeHeaders(headers, decisions, chosen, needsNow ? (clock ? clock() : Date.now()) : 0)
    if (allowed) {
      const result = outcome(
        true,
        false,
        false,
        0,
        headers,
        undefined,
        undefined,
        delayMs,
        decisions,
        decision,
        undefined,
        items,
      )
      result.owner = self
      return delayMs > 0 ? sleep(delayMs).then(() => result) : result
    }
    if (dryRun) {
      const result = outcome(
        true,
        true,
        false,
        0,
        headers,
        undefined,
        undefined,
        0,
        decisions,
        decision,
        undefined,
        undefined,
      )
      if (onLimited) limited(result, info)
      return result
    }
    const retryAfter = Math.max(1, seconds(decision.retryAfterMs))
    headers['retry-after'] = String(retryAfter)
    headers['cache-control'] = 'no-store'
    let text: string | undefined
    if (message !== undefined) {
      try {
        text = typeof message === 'string' ? message : message(info.native, info, decision)
      } catch (error) {
        report(error, info)
      }
    }
    const body = bodyOf(decision.policy, retryAfter, text)
    const result = outcome(
      false,
      true,
      false,
      status,
      headers,
      body,
      contentType,
      0,
      decisions,
      decision,
      undefined,
      undefined,
    )
    if (onLimited) limited(result, info)
    return custom ? customize(result, info) : result
  }

  function limited(result: Outcome, info: RequestInfo<N>): void {
    try {
      onLimited!(info.native, result)
    } catch (error) {
      report(error, info)
    }
  }

  function applyCustom(result: Outcome, response: LimitedResponse | undefined): Outcome {
    if (!response) return result
    if (response.status !== undefined) result.status = response.status
    if (response.headers) Object.assign(result.headers, response.headers)
    if (response.contentType !== undefined) result.contentType = response.contentType
    if (response.body !== undefined) {
      result.body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body)
    }
    return result
  }

  function customize(result: Outcome, info: RequestInfo<N>): Outcome | Promise<Outcome> {
    try {
      const response = custom!(info.native, result, info)
      if (response instanceof Promise) {
        return response.then(
          (r) => applyCustom(result, r),
          (error) => {
            report(error, info)
            return result
          },
        )
      }
      return applyCustom(result, response)
    } catch (error) {
      report(error, info)
      return result
    }
  }

  function decide(info: RequestInfo<N>): Outcome | Promise<Outcome> {
    let ip: string | undefined
    if (needsIp) {
      const parsed = parseIp(info.ip)
      if (parsed !== undefined) {
        if (allowList?.has(parsed)) return SKIPPED
        ip = ipKey(parsed, ipv6Subnet)
      }
    }
    const context: KeyContext<N> = {
      info,
      ip,
      user: userOf ? keyValueText(userOf(info.native, info)) : undefined,
    }
    const items: ConsumeItem[] = new Array(count)
    for (let i = 0; i < count; i++) {
      const policy = policies[i]!
      const part = policy.keyer(context)
      if (part === undefined) return noAddress(info)
      let key = policy.prefix + part
      if (key.length > MAX_KEY_LENGTH) key = boundKey(key)
      const cost = policy.costOf ? policy.costOf(info.native, info) : policy.cost
      if (!checkCost(cost)) throw new RateLimitCostError(cost)
      items[i] = { algorithm: policy.algorithm, key, cost }
    }
    const now = clock?.()
    let result: Decision | Decision[] | Promise<Decision | Decision[]>
    if (count === 1) {
      const item = items[0]!
      result = store.consume(item.algorithm, item.key, item.cost, now)
    } else {
      result = store.consumeAll ? store.consumeAll(items, now) : consumeAll(store, items, now)
    }
    if (result instanceof Promise) {
      return withTimeout(result).then(
        (decisions) => finish(decisions, items, info),
        (error) => failed(error, info),
      )
    }
    return finish(result, items, info)
  }

  function decideSafely(info: RequestInfo<N>): Promise<Outcome> {
    try {
      const result = decide(info)
      return result instanceof Promise
        ? result.catch((error) => failed(error, info))
        : Promise.resolve(result)
    } catch (error) {
      return Promise.resolve(failed(error, info))
    }
  }

  function refundItems(items: readonly ConsumeItem[], info: RequestInfo<N> | undefined): void {
    const now = clock?.()
    for (const item of items) {
      try {
        const done = store.refund(item.algorithm, item.key, item.cost, now)
        if (done instanceof Promise) done.catch((error) => report(error, info))
      } catch (error) {
        report(error, info)
      }
    }
  }

  function release(first: Outcome): void {
    for (let o: Outcome | undefined = first; o !== undefined; o = o.previous) {
      const items = o.items
      if (items === undefined) continue
      if (o.owner !== self) {
        o.owner?.release(o) // that limiter gives back its own spending and walks the rest of the chain
        return
      }
      o.items = undefined
      refundItems(items, undefined)
    }
  }

  function link(result: Outcome, previous: Outcome): Outcome {
    if (result.skipped) return previous
    if (!result.allowed) release(previous)
    else result.previous = previous
    return result
  }

  const self: RateLimitHandler<N> = {
    store,
    options,
    refunds: skipFailed || skipSuccessful,
    release,
    handle(info, previous) {
      if (previous === undefined) return decideRequest(info)
      return decideRequest(info).then((result) => link(result, previous))
    },
    complete(result, responseStatus, info) {
      const items = result.items
      if (items === undefined) return
      result.items = undefined
      const failedResponse = responseStatus === 0 || responseStatus >= 400
      if (failedResponse ? skipFailed : skipSuccessful) refundItems(items, info)
    },
  }
  return self

  function decideRequest(info: RequestInfo<N>): Promise<Outcome> {
    if (skip) {
      let skipped: boolean | Promise<boolean>
      try {
        skipped = skip(info.native, info)
      } catch (error) {
        return Promise.resolve(failed(error, info))
      }
      if (skipped instanceof Promise) {
        return skipped.then(
          (yes) => (yes ? SKIPPED : decideSafely(info)),
          (error) => failed(error, info),
        )
      }
      if (skipped) return SKIPPED_PROMISE
    }
    return decideSafely(info)
  }
}

export type { RateLimitRequestErrorCode }
