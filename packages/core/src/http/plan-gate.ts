import { refundItems } from '../refund-items.js'
import type { Awaitable, ConsumeItem, Decision, Store } from '../types.js'
import type { FailureAnswers } from './failure-answers.js'
import type { Finish } from './finish.js'
import { routeText } from './key-spec.js'
import type { Outcome } from './outcome.js'
import { NoPlan, type PlanLookupNeeded, type PlanOfRequest } from './plans.js'
import { itemsOf } from './policy-items.js'
import type { PlanGateSet, PolicySet, PolicySets } from './policy-sets.js'
import { gatherFacts, type RequestFacts } from './request-facts.js'
import type { RequestInfo } from './request-info.js'
import { decideOnStore } from './store-decision.js'

/**
 * The `limits` (and tiers) of a limiter with plans that are keyed per client, applied before a request's plan
 * is known (see {@link PlanGateSet}). A request whose plan is cached, or on the anonymous plan, never comes
 * here: its limits and plan are decided as one.
 */
export interface PlanGate<N> {
  /**
   * Count a request with no plan (401, 403, or a failed lookup's 503 or 500) against the per-client limits:
   * its own answer when they let it through, else their 429.
   */
  charge(
    info: RequestInfo<N>,
    ip: string | undefined,
    routeKey: string | undefined,
    noPlan: NoPlan,
  ): Awaitable<Outcome>
  /**
   * Spend the per-client limits, and only then look the plan up (a client over them gets 429 and `planOf` is
   * not asked, however many of its requests come at once); with a plan found, give them back and decide the
   * request on the plan's whole set as one. The app's functions are called once: the facts gathered first
   * serve all.
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
  user: ((req: N, info: RequestInfo<N>) => unknown) | undefined
  report: (error: unknown, info: RequestInfo<N>) => void
  clock: (() => number) | undefined
  finish: Finish<N>
  answers: FailureAnswers<N>
  withTimeout: <T>(promise: Promise<T>) => Promise<T>
  dryRun: boolean
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
 * turns out to have, and the gate's items are built from its policies as they stand in the first plan's set.
 */
export function compilePlanGate<N>(parts: PlanGateParts<N>): PlanGate<N> {
  const { store, sets, user, report, clock, finish, answers, withTimeout, dryRun } = parts

  function factsOf(info: RequestInfo<N>, ip: string | undefined, set: PolicySet<N>) {
    const route = set.needsRoute ? routeText(info.route) : '*'
    return gatherFacts(set, set.needsUser ? user : undefined, info, ip, route, undefined, report)
  }

  /**
   * A request with no plan, counted by the gate: its own answer; in a dry run where the gate would have
   * refused it, the shadow refusal (its hooks called, the request let through).
   */
  function answerOf(
    gated: { items: ConsumeItem[]; decisions: Decision[] },
    gate: PlanGateSet<N>,
    info: RequestInfo<N>,
    noPlan: NoPlan,
  ): Awaitable<Outcome> {
    if (gated.decisions.every((d) => d.allowed)) return noPlan.answer
    return finish(gated.decisions, gate.set, gated.items, info, undefined)
  }

  /** Decide the gate's items; a store that fails answers by the fail mode ('open': nothing counted). */
  async function pass(gate: PlanGateSet<N>, facts: RequestFacts<N>, info: RequestInfo<N>) {
    const items = itemsOf(gate.policies, facts)
    if (items === undefined) return answers.noAddress(info)
    if (items.length === 0) return { items, decisions: [], spent: false }
    let decided: Decision | Decision[]
    try {
      decided = await awaitStore(decideOnStore(store, items, gate.set.order, clock?.()))
    } catch (error) {
      const failed = answers.storeFailed(error, info)
      return failed.kind === 'pass' ? { items, decisions: [], spent: false } : failed
    }
    const decisions = Array.isArray(decided) ? decided : [decided]
    if (decisions.every((d) => d.allowed)) return { items, decisions, spent: true }
    // Refused: nothing was spent. Outside a dry run that is the answer; in one, the request goes on and the
    // whole decision, later, says what would have been refused (its hooks called once).
    if (!dryRun) return finish(decided, gate.set, items, info, undefined)
    return { items, decisions, spent: false }
  }

  function awaitStore<T>(decided: Awaitable<T>): Awaitable<T> {
    return decided instanceof Promise ? withTimeout(decided) : decided
  }

  /** Give back what the gate spent; a refund that fails is reported, never thrown. */
  async function giveBack(gated: { items: ConsumeItem[]; spent: boolean }, info: RequestInfo<N>) {
    if (!gated.spent) return
    await refundItems({ store, items: gated.items, now: clock?.(), report: (error) => report(error, info) })
  }

  async function lookUpWith(
    info: RequestInfo<N>,
    ip: string | undefined,
    routeKey: string | undefined,
    needed: PlanLookupNeeded,
  ): Promise<Outcome> {
    const gate = sets.gate(routeKey)
    const facts = await factsOf(info, ip, gate.factsSet)
    const gated = await pass(gate, facts, info)
    if (!('spent' in gated)) return gated // refused, a failing store in 'closed' mode, or no address
    const resolution = await needed.lookUp()
    if (resolution instanceof NoPlan) return answerOf(gated, gate, info, resolution) // counted by the gate
    // The gate held its units while the plan was looked up; the request is now decided on the whole set as
    // one, as a request whose plan is cached is.
    await giveBack(gated, info)
    const plan = resolution
    const planFacts = { keys: { ...facts.keys, plan }, costs: facts.costs }
    return parts.consume(info, sets.get(plan.plan, routeKey), planFacts, plan)
  }

  async function chargeWith(
    info: RequestInfo<N>,
    ip: string | undefined,
    gate: PlanGateSet<N>,
    noPlan: NoPlan,
  ): Promise<Outcome> {
    const gated = await pass(gate, await factsOf(info, ip, gate.factsSet), info)
    return 'spent' in gated ? answerOf(gated, gate, info, noPlan) : gated
  }

  return {
    charge(info, ip, routeKey, noPlan) {
      const gate = sets.gate(routeKey)
      return gate.policies.length === 0 ? noPlan.answer : chargeWith(info, ip, gate, noPlan)
    },
    // A lookup that throws is answered by the handler, as any decision that throws (`storeFailed`).
    lookUp: lookUpWith,
  }
}
