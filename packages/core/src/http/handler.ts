import { compileFailurePolicy } from '../failure-policy.js'
import { compileLimiterMetrics } from '../metrics/limiter-metrics.js'
import { checkRelease } from '../refund-items.js'
import { MemoryStore } from '../stores/memory.js'
import type { Store } from '../types.js'
import { parseOptions } from '../validate.js'
import { compileAllowList } from './allow-list.js'
import { compileDecide, type Decide } from './decide.js'
import type { LimiterControls, RateLimitHandler } from './handler-types.js'
import { compileIdentify, type Identify, type RequestState, requestState } from './identify.js'
import { type ParsedRateLimitOptions, rateLimitOptionsSchema } from './options/schema.js'
import type { RateLimitOptions } from './options/types.js'
import { type Outcome, outcomeOf } from './outcome.js'
import { compileLimiterOverrides, noOverrides } from './override-registry.js'
import { compilePlanStep } from './plan-gate.js'
import { compilePlanResolver } from './plans.js'
import { compilePolicySets } from './policy-sets.js'
import { compileRefunds } from './refunds.js'
import { compileReport } from './report.js'
import type { RequestInfo } from './request-info.js'
import { compileRespond } from './respond.js'
import { checkSettling, compileSettler } from './settle.js'
import { checkBans, compileUnban } from './unban.js'
import { compileUsageReport } from './usage.js'
import { compileRequestWarnings, compileWarnings } from './warnings.js'

export type { RateLimitHandler }

/**
 * Create the framework-neutral rate limiter an adapter wraps. Options are validated now: an invalid one
 * throws a `RateLimitConfigError` naming the option, the value and what is allowed.
 *
 * A request goes through three stages, each a file of its own, read top to bottom:
 * - identify (identify.ts): `skip`, the fields read once, the client address and the allow list, the usage
 *   plan (plan-gate.ts), the policies that decide it, the app's functions, one store item per policy;
 * - decide (decide.ts): one store call for all the items, bounded by `storeTimeout`, and `failMode` when the
 *   store cannot answer;
 * - respond (respond.ts): the pass with its headers, or the refusal, or the answer to a request no policy
 *   decided.
 * The path is built now from exactly the steps the options need. A request that nothing made wait (the
 * MemoryStore, functions that return values) is decided in the same tick, with no promise.
 *
 * With no options: 100 requests a minute per IP, sliding window counter, in-memory store, `draft-6` headers.
 *
 * @example
 * const limiter = createRateLimitHandler({ limit: 100, window: '1m' })
 * const outcome = await limiter.handle({ ip, method, route, path, headers, native: req })
 * if (outcome.kind === 'answer') send(outcome.status, outcome.headers, outcome.body)
 */
export function createRateLimitHandler<N = any>(options: RateLimitOptions<N> = {}): RateLimitHandler<N> {
  const o: ParsedRateLimitOptions = parseOptions(rateLimitOptionsSchema, options, 'rateLimit')
  const store: Store = o.store ?? new MemoryStore()
  const clock = o.clock as (() => number) | undefined
  const report = compileReport<N>(o.onError as RateLimitOptions<N>['onError'])
  const overrides = compileLimiterOverrides<N>(o, store, (error) => report(error, undefined))
  const sets = compilePolicySets<N>(o, overrides)
  // A store that cannot run an algorithm (a SyncedStore and a bucket, say) says so now, not on a request.
  for (const algorithm of sets.algorithms) store.checkAlgorithm?.(algorithm)
  for (const algorithm of sets.algorithms) checkRelease(store, algorithm, 'rateLimit.store')
  const leases = sets.algorithms.some((algorithm) => algorithm.release !== undefined)
  const fallback = typeof o.failMode === 'object' ? (o.failMode.fallback as Store) : undefined
  if (sets.banned.length > 0) checkBans(store, fallback)
  const warnings = compileWarnings(o.warnings)
  const refunds = compileRefunds({
    store,
    clock,
    skipFailedRequests: o.skipFailedRequests,
    skipSuccessfulRequests: o.skipSuccessfulRequests,
    report: (error) => report(error, undefined),
    leases,
    fallback,
  })
  // Settled costs (`settle`): only when a policy settles; its store and algorithms must be able to charge.
  checkSettling(store, sets.settling, o.settle)
  const settler =
    sets.settling.length === 0
      ? undefined
      : compileSettler<N>({
          store,
          clock,
          report,
          givesBack: (status) =>
            status === 0 || status >= 400 ? o.skipFailedRequests : o.skipSuccessfulRequests,
          refund: refunds.complete,
        })
  const respond = compileRespond<N>({
    options: o as RateLimitOptions<N>,
    bans: sets.banned.length > 0,
    status: o.statusCode,
    format: o.format,
    sleep: o.sleep as ((ms: number) => Promise<void>) | undefined,
    clock,
    dryRun: o.dryRun,
    report,
    owner: refunds,
    leases,
  })
  const decide: Decide<N> = compileDecide<N>({
    store,
    failure: compileFailurePolicy(store, {
      failMode: o.failMode,
      storeTimeout: o.storeTimeout,
      metrics: o.metrics,
    }),
    clock,
    dryRun: o.dryRun,
    answers: respond,
  })
  const resolver = o.plans
    ? compilePlanResolver<N>({ o, report, answer: respond.answer, now: clock ?? Date.now })
    : undefined
  const identify: Identify<N> = compileIdentify<N>({
    sets,
    skip: o.skip as ((req: N, info: RequestInfo<N>) => unknown) | undefined,
    deny: o.deny as ((req: N, info: RequestInfo<N>) => unknown) | undefined,
    user: o.user as ((req: N, info: RequestInfo<N>) => unknown) | undefined,
    allowList: o.allowList.length > 0 ? compileAllowList(o.allowList) : undefined,
    denyList: o.denyList.length > 0 ? compileAllowList(o.denyList) : undefined,
    ipv6Subnet: o.ipv6Subnet,
    planNeedsIp: resolver !== undefined && o.anonymousPlan !== undefined,
    warnings: compileRequestWarnings(warnings),
    report,
    plan: resolver
      ? compilePlanStep<N>({
          resolver,
          store,
          sets,
          clock,
          dryRun: o.dryRun,
          identify: () => identify,
          decide: () => decide,
          respond,
          fromItems: (state) => {
            const answered = identify.items(state)
            if (answered instanceof Promise) return answered.then((outcome) => outcome ?? run(state, DECIDE))
            return answered ?? run(state, DECIDE)
          },
        })
      : undefined,
    noAddress: respond.noAddress,
    denied: respond.denied,
    overrides,
  })
  const metrics = o.metrics ? compileLimiterMetrics(o.metrics, Object.keys(o.plans ?? {})) : undefined
  const base = sets.get(undefined, undefined)

  // identify -> decide -> respond
  const identifySteps = identify.steps
  const count = identifySteps.length
  /** Where `run` starts to decide (the store), and to respond: after the identify steps. */
  const DECIDE = count
  const RESPOND = count + 1

  /**
   * Take `state` through the identify steps from `from` on, then decide, then respond. In the same tick while
   * each step answers at once; from the first step that has to wait, the rest runs when it settles (the one
   * place a request goes async). Whatever a step throws or rejects with is a store failure (`failMode`
   * answers), as it always was.
   */
  function run(state: RequestState<N>, from: number): Outcome | Promise<Outcome> {
    try {
      for (let i = from; i < count; i++) {
        const result = identifySteps[i]!(state)
        if (result === undefined) continue
        return result instanceof Promise ? resumeLater(result, state, i + 1) : result
      }
      if (from <= DECIDE) {
        const failed = decide.step(state)
        if (failed !== undefined)
          return failed instanceof Promise ? resumeLater(failed, state, RESPOND) : failed
      }
      const outcome = respond.decided(state)
      return outcome instanceof Promise ? resumeLater(outcome, state, RESPOND) : outcome
    } catch (error) {
      return decide.failed(error, state.info)
    }
  }

  function resumeLater(
    result: Promise<Outcome | undefined>,
    state: RequestState<N>,
    next: number,
  ): Promise<Outcome> {
    return result.then(
      (outcome) => outcome ?? run(state, next),
      (error) => decide.failed(error, state.info),
    )
  }

  function linkLater(decided: Promise<Outcome>, previous: Outcome): Promise<Outcome> {
    return decided.then((result) => refunds.link(result, previous))
  }

  /** With settled costs: what a passed request needs to be settled, kept on its outcome. */
  function settleLater(
    decided: Outcome | Promise<Outcome>,
    state: RequestState<N>,
  ): Outcome | Promise<Outcome> {
    return decided instanceof Promise
      ? decided.then((outcome) => settler!.attach(outcome, state))
      : settler!.attach(decided, state)
  }

  return {
    store,
    options,
    refunds: refunds.onResponse || settler !== undefined,
    release: refunds.release,
    complete: settler ? settler.complete : refunds.complete,
    handle(info, reading) {
      const previous = outcomeOf(reading)
      let decided: Outcome | Promise<Outcome>
      if (settler === undefined) decided = run(requestState(info, base), 0)
      else {
        const state = requestState(info, base)
        decided = settleLater(run(state, 0), state)
      }
      if (decided instanceof Promise) {
        if (metrics) decided.then(metrics)
        return previous === undefined ? decided : linkLater(decided, previous)
      }
      if (metrics) metrics(decided)
      return previous === undefined ? decided : refunds.link(decided, previous)
    },
    writeFailed: respond.writeFailed,
    usage: resolver ? compileUsageReport<N>({ store, sets, resolver, clock }) : undefined,
    bans: sets.banned.length > 0,
    unban: compileUnban({
      stores: sets.banned.length === 0 ? [] : fallback ? [store, fallback] : [store],
      policies: sets.banned,
      ipv6Subnet: o.ipv6Subnet,
    }),
    warn: warnings.warn,
    overrides: overrides?.control ?? noOverrides(),
  }
}

/**
 * `middleware` with the controls of `handler` on it (`usage`, `unban`, `overrides`), as Express's and Koa's
 * `rateLimit` and Fastify's `app.rateLimit()` return it.
 */
export function withControls<M extends object>(middleware: M, handler: LimiterControls): M & LimiterControls {
  return Object.assign(middleware, {
    usage: handler.usage,
    unban: handler.unban,
    overrides: handler.overrides,
  })
}
