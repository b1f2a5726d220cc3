import { refundItems } from '../refund-items.js'
import type { Awaitable, Decision, Store } from '../types.js'
import type { Decide } from './decide.js'
import { type Identify, type RequestState, requestState, type Step } from './identify.js'
import { routeText } from './key-spec.js'
import type { Outcome } from './outcome.js'
import { NO_ADDRESS, NoPlan, PlanLookupNeeded, type PlanResolver, type Resolution } from './plans.js'
import type { PlanGateSet, PolicySets } from './policy-sets.js'
import type { Respond } from './respond.js'

/**
 * Compile the plan step of a limiter with `plans`: it finds the request's plan (plans.ts), and answers a request
 * that has none (401, 403, 503, 500) once the `limits` keyed per client have counted it. A request whose plan is
 * cached, or on the anonymous plan, goes on at once: its limits and plan are then decided as one.
 *
 * A request whose API key's plan is neither cached nor being looked up meets the gate first: the limits keyed per
 * client (by user, key function or address; never one shared by every client, which a flood without credentials
 * would spend for everyone) are spent, and only then is `planOf` asked, so a client over them gets 429 and no
 * lookup, however many of its requests come at once. With the plan found, the gate gives its units back and the
 * request is decided on the plan's whole set as one. The app's functions are called once: the facts gathered
 * for the gate serve the whole set (every plan's set begins with the same base policies, in order, and calls the
 * same functions of the app's).
 */
export function compilePlanStep<N>(parts: {
  resolver: PlanResolver<N>
  store: Store
  sets: PolicySets<N>
  clock: (() => number) | undefined
  dryRun: boolean
  identify: () => Identify<N>
  decide: () => Decide<N>
  respond: Respond<N>
  /** The rest of the request path from its items on (items, decide, respond), for a plan the gate found. */
  fromItems: (state: RequestState<N>) => Awaitable<Outcome>
}): Step<N> {
  const { resolver, store, sets, clock, dryRun, respond } = parts

  function planned(state: RequestState<N>, resolution: Resolution): Awaitable<Outcome | undefined> {
    if (resolution === NO_ADDRESS) return respond.noAddress(state.info)
    if (resolution instanceof NoPlan) return charge(state, resolution)
    if (resolution instanceof PlanLookupNeeded) return lookUp(state, resolution)
    state.plan = resolution
    return undefined
  }

  /** The gate's items, decided on the store as a request's are; the state holds them and their decisions. */
  async function pass(
    state: RequestState<N>,
    gate: PlanGateSet<N>,
  ): Promise<{ gated: RequestState<N>; spent: boolean } | Outcome> {
    const identify = parts.identify()
    const gated = requestState<N>(state.info, gate.set)
    gated.ip = state.ip
    if (gate.factsSet.needsRoute) gated.route = routeText(state.info.route)
    await identify.gather(gated, gate.factsSet)
    const items = identify.itemsOf(gated, gate.policies)
    if (items === undefined) return respond.noAddress(state.info)
    gated.items = items
    if (items.length === 0) return { gated, spent: false }
    const failed = await parts.decide().step(gated)
    // A store failure answered by `failMode`: let through with nothing counted ('open'), or its answer.
    if (failed !== undefined) return failed.kind === 'pass' ? { gated, spent: false } : failed
    const decided = gated.decided!
    const decisions = Array.isArray(decided) ? decided : [decided]
    if (decisions.every((d) => d.allowed)) return { gated, spent: true }
    // Refused: nothing was spent. Outside a dry run that is the answer; in one, the request goes on and the
    // whole decision, later, says what would have been refused (its hooks called once).
    if (!dryRun) return respond.decided(gated)
    return { gated, spent: false }
  }

  /** A request with no plan, counted by the gate: its own answer, or the gate's refusal (shadow, in dry run). */
  async function charge(state: RequestState<N>, noPlan: NoPlan): Promise<Outcome> {
    const gate = sets.gate(sets.routeKeyOf(state.info))
    if (gate.policies.length === 0) return noPlan.answer
    const result = await pass(state, gate)
    return 'spent' in result ? answerOf(result.gated, noPlan) : result
  }

  function answerOf(gated: RequestState<N>, noPlan: NoPlan): Awaitable<Outcome> {
    const decided = gated.decided
    const decisions: Decision[] = decided === undefined ? [] : Array.isArray(decided) ? decided : [decided]
    if (decisions.every((d) => d.allowed)) return noPlan.answer
    return respond.decided(gated)
  }

  async function lookUp(state: RequestState<N>, needed: PlanLookupNeeded): Promise<Outcome> {
    const routeKey = sets.routeKeyOf(state.info)
    const gate = sets.gate(routeKey)
    const result = await pass(state, gate)
    if (!('spent' in result)) return result // refused, a failing store in 'closed' mode, or no address
    const { gated } = result
    const resolution = await needed.lookUp()
    if (resolution instanceof NoPlan) return answerOf(gated, resolution) // counted by the gate
    // The gate held its units while the plan was looked up; the request is now decided on the whole set as
    // one, as a request whose plan is cached is.
    if (result.spent) {
      await refundItems({
        store,
        items: gated.items,
        now: clock?.(),
        report: (error) => respond.report(error, state.info),
      })
    }
    state.plan = resolution
    state.set = sets.get(resolution.plan, routeKey)
    state.route = gated.route
    state.user = gated.user
    state.values = gated.values
    state.costs = gated.costs
    return parts.fromItems(state)
  }

  return (state) => {
    const resolved = resolver.resolve(state.info, state.ip)
    return resolved instanceof Promise
      ? resolved.then((resolution) => planned(state, resolution))
      : planned(state, resolved)
  }
}
