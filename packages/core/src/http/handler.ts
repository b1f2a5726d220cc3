import { mostRestrictiveIndex } from '../consume-all.js'
import { MemoryStore } from '../stores/memory.js'
import type { ConsumeItem, Decision, Store } from '../types.js'
import { parseOptions } from '../validate.js'
import { compileAllowList } from './allow-list.js'
import { callAppFunction, FunctionFailure } from './app-functions.js'
import { applyCustomResponse } from './custom-response.js'
import { RateLimitRequestError } from './errors.js'
import { compileHeaders, headerModes } from './headers.js'
import { ipKey, parseIp } from './ip.js'
import { routeText } from './key-spec.js'
import { type ParsedRateLimitOptions, rateLimitOptionsSchema } from './options/schema.js'
import type { RateLimitOptions } from './options/types.js'
import {
  answeredOutcome,
  type Outcome,
  passedOutcome,
  SKIPPED,
  shadowLimitedOutcome,
  undecidedOutcome,
} from './outcome.js'
import { compilePolicies } from './policies.js'
import { compileRefunds } from './refunds.js'
import { compileRefusal } from './refusal.js'
import { gatherFacts, type RequestFacts } from './request-facts.js'
import type { RequestInfo } from './request-info.js'
import { INTERNAL_ERROR_BODY, JSON_TYPE, NO_ADDRESS_BODY, UNAVAILABLE_BODY } from './responses.js'
import { decideOnStore } from './store-decision.js'
import { compileStoreTimeout } from './store-timeout.js'
import { compileWarnings, type WarningName } from './warnings.js'

/** The framework-neutral rate limiter behind every adapter. */
export interface RateLimitHandler<N = any> {
  /**
   * Decide a request. Never rejects: whatever the store or the app's functions do, the request gets an
   * outcome, and failures go to `onError`. Adapters pass the outcome of an earlier limiter on the same
   * request as `previous` (they keep it on the request): when this one refuses, what the earlier ones spent
   * is given back; when it skips, `previous` still speaks for the request and is returned.
   */
  handle(request: RequestInfo<N>, previous?: Outcome): Promise<Outcome>
  /** Give back everything `outcome` and the outcomes before it spent (once; safe to call again). */
  release(outcome: Outcome): void
  /** Whether `complete` has work to do (`skipFailedRequests` or `skipSuccessfulRequests`): adapters listen for the response's end only then. */
  readonly refunds: boolean
  /** Call when the response has finished, with its status (0 when the connection closed first): refunds per `skipFailedRequests` / `skipSuccessfulRequests`. Safe to call twice. */
  complete(outcome: Outcome, status: number): void
  /**
   * The answer when the adapter could not write an outcome (the framework refused a header, say): a 500,
   * with the error reported to `onError` as `ERR_FLOODGATE_RESPONSE_FAILED`.
   */
  writeFailed(error: unknown, request: RequestInfo<N>): Outcome
  /** Raise a misconfiguration warning the adapter detected (once per process, unless turned off). */
  warn(name: WarningName, message: string): void
  /** The store the policies live in. */
  readonly store: Store
  /** The options this handler was created with (adapters merge per-route options over them). */
  readonly options: RateLimitOptions<N>
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const NO_STORE = { 'cache-control': 'no-store' }

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
  const o: ParsedRateLimitOptions = parseOptions(rateLimitOptionsSchema, options, 'rateLimit')
  const store: Store = o.store ?? new MemoryStore()
  const clock = o.clock as (() => number) | undefined
  const compiled = compilePolicies<N>(o)
  const { policies, order } = compiled
  const count = policies.length
  const allowList = o.allowList.length > 0 ? compileAllowList(o.allowList) : undefined
  const needsIp = allowList !== undefined || compiled.needsIp
  const userOf = compiled.needsUser ? (o.user as (req: N, info: RequestInfo<N>) => unknown) : undefined
  const ipv6Subnet = o.ipv6Subnet === false ? 128 : o.ipv6Subnet
  const modes = headerModes(o.headers)
  const writeHeaders = compileHeaders(
    modes,
    policies.map((p) => ({ name: p.name, limit: p.algorithm.limit, windowMs: p.algorithm.windowMs })),
  )
  const needsNow = writeHeaders !== undefined && modes.includes('legacy')
  const refuse = compileRefusal({ status: o.statusCode, format: o.format })
  const withTimeout = compileStoreTimeout(o.storeTimeout === false ? undefined : o.storeTimeout)
  const warnings = compileWarnings(o.warnings)
  const sleep = (o.sleep as ((ms: number) => Promise<void>) | undefined) ?? defaultSleep
  const {
    dryRun,
    onLimited,
    onError,
    handler: custom,
    message,
    skip,
  } = o as RateLimitOptions<N> & ParsedRateLimitOptions
  const closed = o.failMode === 'closed'
  const reported = new Set<string>()
  let proxyChecks = true

  /** Report one failure on a request: to `onError`, else a process warning once per code. */
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
    if (reported.has(code)) return
    reported.add(code)
    const emit = (globalThis as { process?: { emitWarning?: (m: string, o: object) => void } }).process
      ?.emitWarning
    emit?.(
      `@floodgate: ${error instanceof Error ? error.message : String(error)} (reported once; pass onError to see every one)`,
      { type: 'FloodgateWarning', code },
    )
  }

  const refunds = compileRefunds({
    store,
    clock,
    skipFailedRequests: o.skipFailedRequests,
    skipSuccessfulRequests: o.skipSuccessfulRequests,
    report: (error) => report(error, undefined),
  })

  // skip -> decide -> finish

  function decideRequest(info: RequestInfo<N>): Promise<Outcome> {
    if (skip === undefined) return decideSafely(info)
    const skipped = callAppFunction('skip', skip, info)
    if (skipped instanceof Promise) {
      return skipped.then((yes) => (skipOutcome(yes, info) ? SKIPPED : decideSafely(info)))
    }
    return skipOutcome(skipped, info) ? Promise.resolve(SKIPPED) : decideSafely(info)
  }

  /** Whether `skip`'s answer skips the request. One that failed does not skip (the request is counted). */
  function skipOutcome(value: unknown, info: RequestInfo<N>): boolean {
    if (!(value instanceof FunctionFailure)) return value === true
    report(value.error, info)
    return false
  }

  function decideSafely(info: RequestInfo<N>): Promise<Outcome> {
    try {
      const result = decide(info)
      return result instanceof Promise
        ? result.catch((error) => storeFailed(error, info))
        : Promise.resolve(result)
    } catch (error) {
      return Promise.resolve(storeFailed(error, info))
    }
  }

  function decide(info: RequestInfo<N>): Outcome | Promise<Outcome> {
    if (proxyChecks) checkProxy(info)
    let ip: string | undefined
    if (needsIp) {
      const parsed = parseIp(info.ip)
      if (parsed !== undefined) {
        if (allowList?.has(parsed)) return SKIPPED
        ip = ipKey(parsed, ipv6Subnet)
      }
    }
    let route = '*'
    if (compiled.needsRoute) {
      if (info.route === undefined && warnings.pending('unknownEndpoint')) warnUnknownEndpoint(info)
      route = routeText(info.route)
    }
    const facts = gatherFacts(compiled, userOf, info, ip, route, (error) => report(error, info))
    return facts instanceof Promise ? facts.then((f) => consume(info, f)) : consume(info, facts)
  }

  function consume(info: RequestInfo<N>, facts: RequestFacts<N>): Outcome | Promise<Outcome> {
    const items: ConsumeItem[] = new Array(count)
    for (let i = 0; i < count; i++) {
      const policy = policies[i]!
      const key = policy.keyer(facts.keys, policy.scope)
      if (key === undefined) return noAddress(info)
      const cost = policy.cost ?? facts.costs[policy.costIndex] ?? policy.fallbackCost
      items[i] = { algorithm: policy.algorithm, key, cost }
    }
    const result = decideOnStore(store, items, order, clock?.())
    if (result instanceof Promise) {
      return withTimeout(result).then(
        (decided) => finish(decided, items, info),
        (error) => storeFailed(error, info),
      )
    }
    return finish(result, items, info)
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
      d.policy = policies[i]!.name
      if (d.delayMs > delayMs) delayMs = d.delayMs
    }
    const chosen = mostRestrictiveIndex(decisions)
    const decision = decisions[chosen]!
    const headers: Record<string, string> = {}
    if (writeHeaders) writeHeaders(headers, decisions, chosen, needsNow ? (clock ? clock() : Date.now()) : 0)
    if (decision.allowed) {
      const charged = count === 1 ? (items[0]!.cost > 0 ? items : undefined) : items.filter((i) => i.cost > 0)
      const result = passedOutcome({ headers, decisions, decision, delayMs, items: charged, owner: refunds })
      return delayMs > 0 ? sleep(delayMs).then(() => result) : result
    }
    if (dryRun) {
      const result = shadowLimitedOutcome({ headers, decisions, decision })
      if (onLimited) limited(result, info)
      return result
    }
    const result = refuse({
      headers,
      decisions,
      chosen,
      cost: items[chosen]!.cost,
      message: messageOf(info, decision),
    })
    if (onLimited) limited(result, info)
    return custom ? customize(result, info) : result
  }

  // What happens when something other than a policy decides.

  function storeFailed(error: unknown, info: RequestInfo<N>): Outcome {
    const reason =
      error instanceof RateLimitRequestError
        ? error
        : new RateLimitRequestError(
            'ERR_FLOODGATE_STORE_FAILED',
            `The store failed: ${error instanceof Error ? error.message : String(error)}`,
            { cause: error },
          )
    report(reason, info)
    if (!closed || dryRun) return undecidedOutcome(reason)
    return answeredOutcome({
      status: 503,
      headers: { 'retry-after': '1', ...NO_STORE },
      body: UNAVAILABLE_BODY,
      contentType: JSON_TYPE,
      limited: false,
      error: reason,
    })
  }

  function noAddress(info: RequestInfo<N>): Outcome {
    const error = new RateLimitRequestError(
      'ERR_FLOODGATE_NO_CLIENT_ADDRESS',
      `The client address of ${info.method} ${info.path} is unknown (got ${JSON.stringify(info.ip)}); the request is refused rather than counted under a shared key. Check the framework's trust-proxy setting.`,
    )
    report(error, info)
    if (dryRun) return undecidedOutcome(error)
    return answeredOutcome({
      status: 500,
      headers: { ...NO_STORE },
      body: NO_ADDRESS_BODY,
      contentType: JSON_TYPE,
      limited: false,
      error,
    })
  }

  function internalError(error: RateLimitRequestError, info: RequestInfo<N>, wasLimited: boolean): Outcome {
    report(error, info)
    return answeredOutcome({
      status: 500,
      headers: { ...NO_STORE },
      body: INTERNAL_ERROR_BODY,
      contentType: JSON_TYPE,
      limited: wasLimited,
      error,
    })
  }

  // The app's hooks on a refusal.

  function messageOf(info: RequestInfo<N>, decision: Decision): string | undefined {
    if (typeof message !== 'function') return message
    const text = callAppFunction('message', (req: N, i: RequestInfo<N>) => message(req, i, decision), info)
    if (text instanceof FunctionFailure) {
      report(text.error, info)
      return undefined
    }
    return typeof text === 'string' ? text : undefined
  }

  function limited(result: Outcome, info: RequestInfo<N>): void {
    const done = callAppFunction('onLimited', (req: N) => onLimited!(req, result), info)
    if (done instanceof FunctionFailure) report(done.error, info)
  }

  function customize(result: Outcome, info: RequestInfo<N>): Outcome | Promise<Outcome> {
    const apply = (response: unknown): Outcome => {
      if (response instanceof FunctionFailure) {
        report(response.error, info)
        return result // the default refusal
      }
      const problem = applyCustomResponse(result, response as Parameters<typeof applyCustomResponse>[1])
      return problem ? internalError(problem, info, true) : result
    }
    const response = callAppFunction('handler', (req: N, i: RequestInfo<N>) => custom!(req, result, i), info)
    return response instanceof Promise ? response.then(apply) : apply(response)
  }

  // Misconfiguration warnings, checked until each has been raised.

  function checkProxy(info: RequestInfo<N>): void {
    const trust = info.proxyTrust
    if (
      trust === 'none' &&
      info.headers['x-forwarded-for'] !== undefined &&
      warnings.pending('forwardedHeader')
    ) {
      warnings.warn(
        'forwardedHeader',
        "A request arrived with X-Forwarded-For, but the framework trusts no proxy, so the client address is the proxy's and every client behind it shares one bucket. Trust your proxy's address or CIDR (Express: app.set('trust proxy', '10.0.0.0/8'); Fastify: Fastify({ trustProxy: '10.0.0.0/8' }); Koa: app.proxy = true and app.maxIpsCount = 1), or turn this warning off with warnings: { forwardedHeader: false } when no proxy is in front.",
      )
    }
    if (trust === 'all' && warnings.pending('permissiveTrustProxy')) {
      warnings.warn(
        'permissiveTrustProxy',
        "The framework trusts every proxy, so any client picks its own address, and its own bucket, by sending X-Forwarded-For. Trust only your proxy's address or CIDR (Express: app.set('trust proxy', '10.0.0.0/8'); Fastify: trustProxy: '10.0.0.0/8'; Koa: app.maxIpsCount = 1).",
      )
    }
    proxyChecks = warnings.pending('forwardedHeader') || warnings.pending('permissiveTrustProxy')
  }

  function warnUnknownEndpoint(info: RequestInfo<N>): void {
    warnings.warn(
      'unknownEndpoint',
      `An 'endpoint' key is used where the route pattern cannot be known (${info.method} ${info.path}, before routing or on a router the limiter cannot see), so those requests share one bucket per method ('${info.method} *'). Mount the limiter on the route or router (Koa at app level: pass your router as the \`router\` option).`,
    )
  }

  return {
    store,
    options,
    refunds: refunds.onResponse,
    release: refunds.release,
    complete: refunds.complete,
    handle(info, previous) {
      if (previous === undefined) return decideRequest(info)
      return decideRequest(info).then((result) => refunds.link(result, previous))
    },
    writeFailed(error, info) {
      const reason = new RateLimitRequestError(
        'ERR_FLOODGATE_RESPONSE_FAILED',
        `The response to ${info.method} ${info.path} could not be written: ${error instanceof Error ? error.message : String(error)}. The answer was 500.`,
        { cause: error },
      )
      return internalError(reason, info, false)
    },
    warn: warnings.warn,
  }
}
