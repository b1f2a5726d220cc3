import type { Awaitable, ConsumeItem, Decision, Store } from '../types.js'
import type { FailureAnswers } from './failure-answers.js'
import type { Finish } from './finish.js'
import { routeText } from './key-spec.js'
import type { Outcome } from './outcome.js'
import { NoPlan, type PlanLookupNeeded, type PlanOfRequest, type Resolution } from './plans.js'
import { itemsOf } from './policy-items.js'
import type { PolicySet, PolicySets } from './policy-sets.js'
import { gatherFacts, type RequestFacts } from './request-facts.js'
import type { RequestInfo } from './request-info.js'
import { decideOnStore } from './store-decision.js'

/**
 * The `limits` (and tiers) of a limiter with plans, applied before a request's plan is known: a request with
 * no plan (401, 403) is counted by them, and a client already over them is refused before `planOf` is asked
 * about its key. A request whose plan is cached, or on the anonymous plan, never comes here: its `limits` and
 * plan are decided as one.
 */
export interface PlanGate<N> {
  /** Count a request with no plan against the `limits`: its 401 or 403 when they let it through, else 429. */
  charge(
    info: RequestInfo<N>,
    ip: string | undefined,
    routeKey: string | undefined,
    noPlan: NoPlan,
  ): Awaitable<Outcome>
  /**
   * Check the `limits` (a peek: nothing spent), then look the plan up and decide the request on it. The app's
   * functions are called once: the facts gathered for the check serve the decision.
   */
  lookUp(
    info: RequestInfo<N>,
    ip: string | undefined,
    routeKey: string | undefined,
    needed: PlanLookupNeeded,
  ): Promise<Outcome>
}

export interface PlanGateParts<N> {
  store: Store
  sets: PolicySets<N>
  /** Any plan's name: every plan's set calls the same functions of the app's (see {@link compilePlanGate}). */
  anyPlan: string
  user: ((req: N, info: RequestInfo<N>) => unknown) | undefined
  report: (error: unknown, info: RequestInfo<N>) => void
  clock: (() => number) | undefined
  finish: Finish<N>
  answers: FailureAnswers<N>
  withTimeout: <T>(promise: Promise<T>) => Promise<T>
  /** The handler's own path for a request whose plan is known and whose facts are gathered. */
  consume: (
    info: RequestInfo<N>,
    set: PolicySet<N>,
    facts: RequestFacts<N>,
    plan: PlanOfRequest,
  ) => Awaitable<Outcome>
}

/**
 * Compile the gate. Every plan's set is the base set's policies followed by the plan's `rate` (and `quota`),
 * which key by the caller and cost the top-level `cost`: the functions of the app's they call are the same for
 * every plan, so the facts gathered with one plan's set, before the plan is known, serve whichever plan the key
 * turns out to have.
 */
export function compilePlanGate<N>(parts: PlanGateParts<N>): PlanGate<N> {
  const { store, sets, anyPlan, user, report, clock, finish, answers, withTimeout } = parts

  function factsOf(info: RequestInfo<N>, ip: string | undefined, set: PolicySet<N>) {
    const route = set.needsRoute ? routeText(info.route) : '*'
    return gatherFacts(set, set.needsUser ? user : undefined, info, ip, route, undefined, report)
  }

  /** The base set's items of a request, from the facts of a plan's set (the base policies come first). */
  function baseItems(base: PolicySet<N>, full: PolicySet<N>, facts: RequestFacts<N>) {
    return itemsOf(full.policies, facts, base.policies.length)
  }

  function chargeWith(
    info: RequestInfo<N>,
    base: PolicySet<N>,
    full: PolicySet<N>,
    facts: RequestFacts<N>,
    noPlan: NoPlan,
  ): Awaitable<Outcome> {
    const items = baseItems(base, full, facts)
    if (items === undefined) return answers.noAddress(info)
    const decided = decideOnStore(store, items, base.order, clock?.())
    if (!(decided instanceof Promise)) return charged(decided, base, items, info, noPlan)
    return withTimeout(decided).then(
      (d) => charged(d, base, items, info, noPlan),
      (error: unknown) => answers.storeFailed(error, info),
    )
  }

  /** The request's own answer when the `limits` counted it; their refusal when they did not. */
  function charged(
    decided: Decision | Decision[],
    base: PolicySet<N>,
    items: ConsumeItem[],
    info: RequestInfo<N>,
    noPlan: NoPlan,
  ): Awaitable<Outcome> {
    const decisions = Array.isArray(decided) ? decided : [decided]
    if (decisions.every((d) => d.allowed)) return noPlan.answer
    return finish(decided, base, items, info, undefined)
  }

  /** Each base item peeked (nothing spent): its decisions, or a promise of them on a remote store. */
  function peekAll(items: ConsumeItem[]): Awaitable<Decision[]> {
    const now = clock?.()
    const peeks = items.map((item) => store.peek(item.algorithm, item.key, item.cost, now))
    return peeks.some((p) => p instanceof Promise) ? withTimeout(Promise.all(peeks)) : (peeks as Decision[])
  }

  async function lookUpWith(
    info: RequestInfo<N>,
    ip: string | undefined,
    routeKey: string | undefined,
    needed: PlanLookupNeeded,
  ): Promise<Outcome> {
    const base = sets.get(undefined, routeKey)
    const full = sets.get(anyPlan, routeKey)
    const facts = await factsOf(info, ip, full)
    if (base.policies.length > 0) {
      const items = baseItems(base, full, facts)
      if (items === undefined) return answers.noAddress(info)
      const peeks = await peekAll(items)
      if (!peeks.every((d) => d.allowed)) {
        const refused = await finish(peeks, base, items, info, undefined)
        if (!refused.allowed) return refused // in a dry run, the request goes on
      }
    }
    const resolution: Resolution = await needed.lookUp()
    if (resolution instanceof NoPlan) {
      return base.policies.length === 0 ? resolution.answer : chargeWith(info, base, full, facts, resolution)
    }
    if (typeof resolution === 'object' && 'partition' in resolution) {
      const planFacts = { keys: { ...facts.keys, plan: resolution }, costs: facts.costs }
      return parts.consume(info, sets.get(resolution.plan, routeKey), planFacts, resolution)
    }
    return resolution as Outcome // a lookup that failed: 503, or 500 for a plan `plans` does not have
  }

  return {
    charge(info, ip, routeKey, noPlan) {
      const base = sets.get(undefined, routeKey)
      if (base.policies.length === 0) return noPlan.answer
      const full = sets.get(anyPlan, routeKey)
      const facts = factsOf(info, ip, full)
      return facts instanceof Promise
        ? facts.then((f) => chargeWith(info, base, full, f, noPlan))
        : chargeWith(info, base, full, facts, noPlan)
    },
    lookUp(info, ip, routeKey, needed) {
      return lookUpWith(info, ip, routeKey, needed).catch((error: unknown) =>
        answers.storeFailed(error, info),
      )
    },
  }
}
