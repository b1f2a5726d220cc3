import { compileFailurePolicy } from '../failure-policy.js'
import { compileLimiterMetrics } from '../metrics/limiter-metrics.js'
import { MemoryStore } from '../stores/memory.js'
import type { ConsumeItem, Decision, Store } from '../types.js'
import { parseOptions } from '../validate.js'
import { compileAllowList } from './allow-list.js'
import { compileClientAddresses, keptLength } from './client-addresses.js'
import { compileFailureAnswers } from './failure-answers.js'
import { compileFinish } from './finish.js'
import type { RateLimitHandler } from './handler-types.js'
import { routeText } from './key-spec.js'
import { type ParsedRateLimitOptions, rateLimitOptionsSchema } from './options/schema.js'
import type { RateLimitOptions } from './options/types.js'
import { type Outcome, outcomeOf, SKIPPED } from './outcome.js'
import { compilePlanGate } from './plan-gate.js'
import {
  compilePlanResolver,
  NO_ADDRESS,
  NoPlan,
  PlanLookupNeeded,
  type PlanOfRequest,
  type Resolution,
} from './plans.js'
import { compilePolicySets, type PolicySet } from './policy-sets.js'
import { compileRefunds } from './refunds.js'
import { compileRefusal } from './refusal.js'
import { compileRefusalHooks } from './refusal-hooks.js'
import { compileReport } from './report.js'
import { gatherFacts, type RequestFacts } from './request-facts.js'
import { type RequestInfo, readableRequest } from './request-info.js'
import { compileRequestWarnings } from './request-warnings.js'
import { compileSkip } from './skip.js'
import { decideOnStore } from './store-decision.js'
import { compileUsageReport } from './usage.js'
import { compileWarnings } from './warnings.js'

export type { RateLimitHandler }

/**
 * Create the framework-neutral rate limiter an adapter wraps. Options are validated now: an invalid one
 * throws a `RateLimitConfigError` naming the option, the value and what is allowed.
 *
 * With no options: 100 requests a minute per IP, sliding window counter, in-memory store, `draft-6` headers.
 *
 * @example
 * const limiter = createRateLimitHandler({ limit: 100, window: '1m' })
 * const outcome = await limiter.handle({ ip, method, route, path, headers, native: req })
 * // or, to go on in the same tick when nothing had to wait (the MemoryStore, synchronous functions):
 * const decided = limiter.handle(info)
 * if (decided instanceof Promise) decided.then(write)
 * else write(decided)
 * if (outcome.kind === 'answer') send(outcome.status, outcome.headers, outcome.body)
 */
export function createRateLimitHandler<N = any>(options: RateLimitOptions<N> = {}): RateLimitHandler<N> {
  const o: ParsedRateLimitOptions = parseOptions(rateLimitOptionsSchema, options, 'rateLimit')
  const store: Store = o.store ?? new MemoryStore()
  const clock = o.clock as (() => number) | undefined
  const sets = compilePolicySets<N>(o)
  // A store that cannot run an algorithm (a SyncedStore and a bucket, say) says so now, not on a request.
  for (const algorithm of sets.algorithms) store.checkAlgorithm?.(algorithm)
  const { needsRoute, routeKeyOf } = sets
  const allowList = o.allowList.length > 0 ? compileAllowList(o.allowList) : undefined
  const userOf = o.user as ((req: N, info: RequestInfo<N>) => unknown) | undefined
  const addresses = compileClientAddresses({ allowList, ipv6Subnet: o.ipv6Subnet })
  const refuse = compileRefusal({ status: o.statusCode, format: o.format })
  const failure = compileFailurePolicy(store, {
    failMode: o.failMode,
    storeTimeout: o.storeTimeout,
    metrics: o.metrics,
  })
  const withTimeout = failure.bound
  const sleep = o.sleep as ((ms: number) => Promise<void>) | undefined
  const { dryRun } = o
  const skip = o.skip as RateLimitOptions<N>['skip']
  const report = compileReport<N>(o.onError as RateLimitOptions<N>['onError'])
  const answers = compileFailureAnswers<N>({ failure, dryRun, report })
  const hooks = compileRefusalHooks<N>({ options: o as RateLimitOptions<N>, report, answers })
  const warnings = compileWarnings(o.warnings)
  const requestWarnings = compileRequestWarnings(warnings)
  const plans = o.plans ? compilePlanResolver<N>({ o, report, now: clock ?? Date.now }) : undefined
  const usage = plans ? compileUsageReport<N>({ store, sets, resolver: plans, clock }) : undefined
  const metrics = o.metrics ? compileLimiterMetrics(o.metrics, Object.keys(o.plans ?? {})) : undefined
  const base = sets.get(undefined, undefined)
  // The address is parsed only when something uses it: a plan keyed by API key alone never needs it.
  const needsIp =
    allowList !== undefined || (plans !== undefined && o.anonymousPlan !== undefined) || sets.needsIp
  const refunds = compileRefunds({
    store,
    clock,
    skipFailedRequests: o.skipFailedRequests,
    skipSuccessfulRequests: o.skipSuccessfulRequests,
    report: (error) => report(error, undefined),
  })

  const finish = compileFinish<N>({ refuse, hooks, refunds, sleep, clock, dryRun, report })
  const gate = o.plans
    ? compilePlanGate<N>({
        store,
        sets,
        user: userOf,
        report,
        clock,
        finish,
        answers,
        withTimeout,
        dryRun,
        consume,
      })
    : undefined

  // skip -> decide -> finish
  //
  // A request decided in this tick allocates no closure: every function on that path leaves its callbacks to
  // a function of their own (`...Later`), called only when something has to wait. A function that creates a
  // closure allocates a context for what it captures on every call, whichever way the call goes.

  function decideSafely(info: RequestInfo<N>): Outcome | Promise<Outcome> {
    try {
      const result = decide(info)
      return result instanceof Promise ? failedLater(result, info) : result
    } catch (error) {
      return answers.storeFailed(error, info)
    }
  }

  function failedLater(result: Promise<Outcome>, info: RequestInfo<N>): Promise<Outcome> {
    return result.catch((error) => answers.storeFailed(error, info))
  }

  function decide(request: RequestInfo<N>): Outcome | Promise<Outcome> {
    // The route is read here, where a failure is the request's, not the store's (decideSafely's).
    let info = needsRoute ? readableRequest(request, 'route', report) : request
    const routeRead = info === request
    if (needsIp) info = readableRequest(info, 'ip', report)
    requestWarnings.check(info, needsRoute && routeRead)
    let ip: string | undefined
    if (needsIp) {
      const raw = info.ip
      const address =
        (typeof raw === 'string' && keptLength(raw) ? addresses.seen.get(raw) : undefined) ??
        addresses.parse(raw)
      if (address !== undefined) {
        if (address.allowed) return SKIPPED
        ip = address.ip
      }
    }
    if (plans === undefined) return withPlan(info, ip, undefined)
    const resolved = plans.resolve(info, ip)
    return resolved instanceof Promise ? plannedLater(resolved, info, ip) : planned(info, ip, resolved)
  }

  function plannedLater(
    resolved: Promise<Resolution>,
    info: RequestInfo<N>,
    ip: string | undefined,
  ): Promise<Outcome> {
    return resolved.then((r) => planned(info, ip, r))
  }

  /** Go on with the request's plan, or answer it (401, 403, 503, 500) when it has none. */
  function planned(
    info: RequestInfo<N>,
    ip: string | undefined,
    resolution: Resolution,
  ): Outcome | Promise<Outcome> {
    if (resolution === NO_ADDRESS) return answers.noAddress(info)
    if (resolution instanceof NoPlan) return gate!.charge(info, ip, routeKeyOf(info), resolution)
    if (resolution instanceof PlanLookupNeeded) return gate!.lookUp(info, ip, routeKeyOf(info), resolution)
    return withPlan(info, ip, resolution)
  }

  function withPlan(
    info: RequestInfo<N>,
    ip: string | undefined,
    plan: PlanOfRequest | undefined,
  ): Outcome | Promise<Outcome> {
    const routeKey = routeKeyOf(info)
    const set = plan === undefined && routeKey === undefined ? base : sets.get(plan?.plan, routeKey)
    const route = set.needsRoute ? routeText(info.route) : '*'
    const facts = gatherFacts(set, set.needsUser ? userOf : undefined, info, ip, route, plan, report)
    return facts instanceof Promise ? consumeLater(facts, info, set, plan) : consume(info, set, facts, plan)
  }

  function consumeLater(
    facts: Promise<RequestFacts<N>>,
    info: RequestInfo<N>,
    set: PolicySet<N>,
    plan: PlanOfRequest | undefined,
  ): Promise<Outcome> {
    return facts.then((f) => consume(info, set, f, plan))
  }

  function consume(
    info: RequestInfo<N>,
    set: PolicySet<N>,
    facts: RequestFacts<N>,
    plan: PlanOfRequest | undefined,
  ): Outcome | Promise<Outcome> {
    // itemsOf's loop, written out: called here, it costs the hot path 2% of a decision (2,995 against 2,939 CPU
    // instructions, node bench/suites/memory/count.mjs handle-loop.mjs <core dist>). The plan gate calls it.
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
    let result: Decision | Decision[] | Promise<Decision | Decision[]>
    try {
      result = decideOnStore(store, items, set.order, clock?.())
    } catch (error) {
      return storeFailed(error, set, items, info, plan)
    }
    if (result instanceof Promise) return finishLater(result, set, items, info, plan)
    return finish(result, set, items, info, plan)
  }

  /** The store could not answer: `failMode` decides (the fallback store decides the items, or an answer). */
  function storeFailed(
    error: unknown,
    set: PolicySet<N>,
    items: ConsumeItem[],
    info: RequestInfo<N>,
    plan: PlanOfRequest | undefined,
  ): Outcome | Promise<Outcome> {
    const fallback = answers.fallback
    if (fallback === undefined) return answers.storeFailed(error, info)
    answers.fellBack(error, info)
    let result: Decision | Decision[] | Promise<Decision | Decision[]>
    try {
      result = decideOnStore(fallback, items, set.order, clock?.())
    } catch (failed) {
      return answers.storeFailed(failed, info)
    }
    if (!(result instanceof Promise)) return finish(result, set, items, info, plan)
    return failure.boundFallback(result).then(
      (decided) => finish(decided, set, items, info, plan),
      (failed) => answers.storeFailed(failed, info),
    )
  }

  function finishLater(
    result: Promise<Decision | Decision[]>,
    set: PolicySet<N>,
    items: ConsumeItem[],
    info: RequestInfo<N>,
    plan: PlanOfRequest | undefined,
  ): Promise<Outcome> {
    return withTimeout(result).then(
      (decided) => finish(decided, set, items, info, plan),
      (error) => storeFailed(error, set, items, info, plan),
    )
  }

  function linkLater(decided: Promise<Outcome>, previous: Outcome): Promise<Outcome> {
    return decided.then((result) => refunds.link(result, previous))
  }

  const decideRequest = compileSkip<N>({ skip, report, next: decideSafely })

  return {
    store,
    options,
    refunds: refunds.onResponse,
    release: refunds.release,
    complete: refunds.complete,
    handle(info, reading) {
      const previous = outcomeOf(reading)
      const decided = decideRequest(info)
      if (decided instanceof Promise) {
        if (metrics) decided.then(metrics)
        return previous === undefined ? decided : linkLater(decided, previous)
      }
      if (metrics) metrics(decided)
      return previous === undefined ? decided : refunds.link(decided, previous)
    },
    writeFailed: answers.writeFailed,
    usage,
    warn: warnings.warn,
  }
}
