import { mostRestrictiveIndex } from '../consume-all.js'
import { compileLimiterMetrics } from '../metrics/limiter-metrics.js'
import { MemoryStore } from '../stores/memory.js'
import type { ConsumeItem, Decision, Store } from '../types.js'
import { parseOptions } from '../validate.js'
import { compileAllowList } from './allow-list.js'
import { callAppFunction, FunctionFailure } from './app-functions.js'
import { compileFailureAnswers } from './failure-answers.js'
import { ipKey, parseIp } from './ip.js'
import { routeText } from './key-spec.js'
import { type ParsedRateLimitOptions, rateLimitOptionsSchema } from './options/schema.js'
import type { RateLimitOptions } from './options/types.js'
import { type Outcome, passedOutcome, SKIPPED, shadowLimitedOutcome } from './outcome.js'
import { compilePlanResolver, NO_ADDRESS, type PlanOfRequest, type Resolution } from './plans.js'
import { compilePolicySets, type PolicySet } from './policy-sets.js'
import { compileRefunds } from './refunds.js'
import { compileRefusal } from './refusal.js'
import { compileRefusalHooks } from './refusal-hooks.js'
import { compileReport } from './report.js'
import { gatherFacts, type RequestFacts } from './request-facts.js'
import type { RequestInfo } from './request-info.js'
import { compileRequestWarnings } from './request-warnings.js'
import { decideOnStore } from './store-decision.js'
import { compileStoreTimeout } from './store-timeout.js'
import { compileUsageReport, type UsageReport } from './usage.js'
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
  /**
   * What an API key has used of its usage plan, and a way to give it back (support staff): `usage(apiKey)`
   * and `resetUsage(apiKey)`. `undefined` without `plans`.
   */
  readonly usage: UsageReport | undefined
  /** Raise a misconfiguration warning the adapter detected (once per process, unless turned off). */
  warn(name: WarningName, message: string): void
  /** The store the policies live in. */
  readonly store: Store
  /** The options this handler was created with (adapters merge per-route options over them). */
  readonly options: RateLimitOptions<N>
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The items a request spent (cost > 0), to give back on a refund; the array itself when all did. */
function spent(items: ConsumeItem[]): ConsumeItem[] | undefined {
  let free = 0
  for (let i = 0; i < items.length; i++) if (items[i]!.cost === 0) free++
  if (free === 0) return items
  return free === items.length ? undefined : items.filter((item) => item.cost > 0)
}

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
  const sets = compilePolicySets<N>(o)
  // A store that cannot run an algorithm (a SyncedStore and a bucket, say) says so now, not on a request.
  for (const algorithm of sets.algorithms) store.checkAlgorithm?.(algorithm)
  const { needsRoute, byRoute } = sets
  const allowList = o.allowList.length > 0 ? compileAllowList(o.allowList) : undefined
  const userOf = o.user as ((req: N, info: RequestInfo<N>) => unknown) | undefined
  const ipv6Subnet = o.ipv6Subnet === false ? 128 : o.ipv6Subnet
  const refuse = compileRefusal({ status: o.statusCode, format: o.format })
  const withTimeout = compileStoreTimeout(o.storeTimeout === false ? undefined : o.storeTimeout)
  const sleep = (o.sleep as ((ms: number) => Promise<void>) | undefined) ?? defaultSleep
  const { dryRun } = o
  const skip = o.skip as RateLimitOptions<N>['skip']
  const report = compileReport<N>(o.onError as RateLimitOptions<N>['onError'])
  const answers = compileFailureAnswers<N>({ closed: o.failMode === 'closed', dryRun, report })
  const hooks = compileRefusalHooks<N>({ options: o as RateLimitOptions<N>, report, answers })
  const warnings = compileWarnings(o.warnings)
  const requestWarnings = compileRequestWarnings(warnings)
  const plans = o.plans ? compilePlanResolver<N>({ o, report, now: clock ?? Date.now }) : undefined
  const usage = plans ? compileUsageReport<N>({ store, sets, resolver: plans, clock }) : undefined
  const metrics = o.metrics ? compileLimiterMetrics(o.metrics, Object.keys(o.plans ?? {})) : undefined
  const base = sets.get(undefined, undefined)
  const needsIp = allowList !== undefined || plans !== undefined || base.needsIp
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
      return skipped.then((yes) => (skips(yes, info) ? SKIPPED : decideSafely(info)))
    }
    return skips(skipped, info) ? Promise.resolve(SKIPPED) : decideSafely(info)
  }

  /** Whether `skip`'s answer skips the request. One that failed does not skip (the request is counted). */
  function skips(value: unknown, info: RequestInfo<N>): boolean {
    if (!(value instanceof FunctionFailure)) return value === true
    report(value.error, info)
    return false
  }

  function decideSafely(info: RequestInfo<N>): Promise<Outcome> {
    try {
      const result = decide(info)
      return result instanceof Promise
        ? result.catch((error) => answers.storeFailed(error, info))
        : Promise.resolve(result)
    } catch (error) {
      return Promise.resolve(answers.storeFailed(error, info))
    }
  }

  function decide(info: RequestInfo<N>): Outcome | Promise<Outcome> {
    requestWarnings.check(info, needsRoute)
    let ip: string | undefined
    if (needsIp) {
      const parsed = parseIp(info.ip)
      if (parsed !== undefined) {
        if (allowList?.has(parsed)) return SKIPPED
        ip = ipKey(parsed, ipv6Subnet)
      }
    }
    if (plans === undefined) return withPlan(info, ip, undefined)
    const resolved = plans.resolve(info, ip)
    return resolved instanceof Promise
      ? resolved.then((r) => planned(info, ip, r))
      : planned(info, ip, resolved)
  }

  /** Go on with the request's plan, or answer it (401, 403, 503, 500) when it has none. */
  function planned(
    info: RequestInfo<N>,
    ip: string | undefined,
    resolution: Resolution,
  ): Outcome | Promise<Outcome> {
    if (resolution === NO_ADDRESS) return answers.noAddress(info)
    if ('partition' in resolution) return withPlan(info, ip, resolution)
    return resolution
  }

  function withPlan(
    info: RequestInfo<N>,
    ip: string | undefined,
    plan: PlanOfRequest | undefined,
  ): Outcome | Promise<Outcome> {
    const routeKey = byRoute && info.route ? `${info.method} ${info.route}` : undefined
    const set = plan === undefined && routeKey === undefined ? base : sets.get(plan?.plan, routeKey)
    const route = set.needsRoute ? routeText(info.route) : '*'
    const facts = gatherFacts(
      set,
      set.needsUser ? userOf : undefined,
      info,
      ip,
      route,
      plan?.partition,
      (error) => report(error, info),
    )
    return facts instanceof Promise
      ? facts.then((f) => consume(info, set, f, plan))
      : consume(info, set, facts, plan)
  }

  function consume(
    info: RequestInfo<N>,
    set: PolicySet<N>,
    facts: RequestFacts<N>,
    plan: PlanOfRequest | undefined,
  ): Outcome | Promise<Outcome> {
    const { policies } = set
    const count = policies.length
    const items: ConsumeItem[] = new Array(count)
    for (let i = 0; i < count; i++) {
      const policy = policies[i]!
      const key = policy.keyer(facts.keys, policy.scope)
      if (key === undefined) return answers.noAddress(info)
      const cost = policy.cost ?? facts.costs[policy.costIndex] ?? policy.fallbackCost
      items[i] = { algorithm: policy.algorithm, key, cost }
    }
    const result = decideOnStore(store, items, set.order, clock?.())
    if (result instanceof Promise) {
      return withTimeout(result).then(
        (decided) => finish(decided, set, items, info, plan),
        (error) => answers.storeFailed(error, info),
      )
    }
    return finish(result, set, items, info, plan)
  }

  function finish(
    raw: Decision | Decision[],
    set: PolicySet<N>,
    items: ConsumeItem[],
    info: RequestInfo<N>,
    plan: PlanOfRequest | undefined,
  ): Outcome | Promise<Outcome> {
    const { policies, writeHeaders } = set
    const count = policies.length
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
    if (writeHeaders)
      writeHeaders(headers, decisions, chosen, set.needsNow ? (clock ? clock() : Date.now()) : 0)
    if (decision.allowed) {
      const charged = spent(items)
      const passed = passedOutcome({ headers, decisions, decision, delayMs, items: charged, owner: refunds })
      if (plan) passed.plan = plan.plan
      return delayMs > 0 ? sleep(delayMs).then(() => passed) : passed
    }
    if (dryRun) {
      const shadow = shadowLimitedOutcome({ headers, decisions, decision })
      if (plan) shadow.plan = plan.plan
      hooks.limited(shadow, info)
      return shadow
    }
    const message = hooks.messageOf(info, decision)
    const quota = policies[chosen]!.role === 'quota'
    const refused = refuse({ headers, decisions, chosen, cost: items[chosen]!.cost, message, quota })
    if (plan) refused.plan = plan.plan
    hooks.limited(refused, info)
    return hooks.customize(refused, info)
  }

  return {
    store,
    options,
    refunds: refunds.onResponse,
    release: refunds.release,
    complete: refunds.complete,
    handle(info, previous) {
      const decided = decideRequest(info)
      if (metrics) decided.then(metrics)
      if (previous === undefined) return decided
      return decided.then((result) => refunds.link(result, previous))
    },
    writeFailed: answers.writeFailed,
    usage,
    warn: warnings.warn,
  }
}
