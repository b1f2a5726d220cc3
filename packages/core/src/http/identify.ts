import type { ConsumeItem, Decision } from '../types.js'
import type { AllowList } from './allow-list.js'
import { anyPromise, callAppFunction, costValue, FunctionFailure, keyText } from './app-functions.js'
import { compileClientAddresses } from './client-addresses.js'
import { type KeyFacts, routeText } from './key-spec.js'
import { type Outcome, SKIPPED } from './outcome.js'
import type { OverridesRegistry } from './override-registry.js'
import { idText } from './overrides.js'
import type { PlanOfRequest } from './plans.js'
import type { Policy } from './policies.js'
import type { PolicySet, PolicySets } from './policy-sets.js'
import type { Reporter } from './report.js'
import { type RequestInfo, readableRequest, unreadable } from './request-info.js'
import type { RequestWarnings } from './warnings.js'

// The first stage of a request: who is asking, and what each policy counts it as. In order: the app's `skip`;
// the fields the limiter reads (the route pattern, the client address), each read once; the client address,
// parsed, and checked against the deny list and the allow list; the app's `deny` (a denial comes before `skip`); the usage plan (plans.ts, beside this file); the set of
// policies that decides the request (by plan and route tier); the app's `user`, key and cost functions, each
// called once; and one store item (algorithm, key, cost) per policy. Each step exists only when the options
// need it (no allow-list check without an allow list, no address parsed when no policy keys on it).

/**
 * One request on its way through the three stages (identify, decide, respond): what each step found, in
 * the fields the next steps read. It is the keys' facts too: a policy builds its store key from it.
 */
export interface RequestState<N = any> extends KeyFacts<N> {
  /** The request as the limiter reads it (a field that could not be read is unknown here). */
  info: RequestInfo<N>
  /** The normalised client address (`'1.2.3.4'`, `'2001:db8:0:1::/64'`), when a policy needs it and it is known. */
  ip: string | undefined
  /** The route as keys show it: the encoded pattern, `*` when unknown, `(no route)` when none matches. */
  route: string
  /** The `user` option's answer, encoded; `undefined` when there is none, or it failed. */
  user: string | undefined
  /** Each key function's answer, encoded, by the function's index. */
  values: (string | undefined)[]
  /** With overrides: the `user` option's answer as the app gave it (the identifier overrides match). */
  userId: string | undefined
  /** With overrides: each key function's answer as the app gave it, by the function's index. */
  ids: (string | undefined)[]
  /** Each cost function's answer, normalised; `undefined` when it failed (the policy's fallback cost applies). */
  costs: (number | undefined)[]
  /** The usage plan the request is decided under, with `plans`. */
  plan: PlanOfRequest | undefined
  /** The policies that decide the request. */
  set: PolicySet<N>
  /** What the store decides: one item per policy. */
  items: ConsumeItem[]
  /** What the store (or the fallback store) decided, item by item. */
  decided: Decision | Decision[] | undefined
}

/** A request's state before its first step: nothing found yet, the limiter's base set of policies. */
export function requestState<N>(info: RequestInfo<N>, set: PolicySet<N>): RequestState<N> {
  // One literal, every field in this order: every state has one shape.
  return {
    info,
    ip: undefined,
    route: '*',
    user: undefined,
    values: NONE,
    userId: undefined,
    ids: NONE,
    costs: NONE,
    plan: undefined,
    set,
    items: NONE,
    decided: undefined,
  }
}

/** No values: a request whose policies call no function of the app's (shared, never written). */
const NONE: never[] = []

/**
 * A step of the request path: it fills in `state` and returns `undefined` to go on, or the request's
 * {@link Outcome} to end it there; a promise of either when it had to wait.
 */
export type Step<N> = (state: RequestState<N>) => Outcome | undefined | Promise<Outcome | undefined>

/** What the identify stage is built from, fixed at creation. */
export interface IdentifyParts<N> {
  sets: PolicySets<N>
  skip: ((req: N, info: RequestInfo<N>) => unknown) | undefined
  /** The app's `deny`. */
  deny: ((req: N, info: RequestInfo<N>) => unknown) | undefined
  user: ((req: N, info: RequestInfo<N>) => unknown) | undefined
  allowList: AllowList | undefined
  /** The ranges of `denyList`, compiled as an allow list's are. */
  denyList: AllowList | undefined
  /** The `ipv6Subnet` option: the prefix an IPv6 client is keyed by, `false` for the whole address. */
  ipv6Subnet: number | false
  /** Whether the plan step reads the address (an `anonymousPlan` keys by it). */
  planNeedsIp: boolean
  warnings: RequestWarnings
  report: Reporter<N>
  /** The plan step, with `plans` (plans.ts): it sets `state.plan`, or answers a request that has none. */
  plan: Step<N> | undefined
  /** The answer to a request whose client address is unknown where a key needs it (never a shared key). */
  noAddress: (info: RequestInfo<N>) => Outcome
  /** The answer to a denied request (403). */
  denied: (info: RequestInfo<N>) => Outcome
  /** The policies' overrides (overrides.ts), when a policy has an `overrides` option. */
  overrides?: OverridesRegistry<N> | undefined
}

/** The identify stage: its steps in order, and the two a plan's gate reuses. */
export interface Identify<N> {
  readonly steps: Step<N>[]
  /** Call the app's `user`, key and cost functions that `set` uses, and keep what they gave. */
  gather(state: RequestState<N>, set: PolicySet<N>): undefined | Promise<undefined>
  /** The last step, alone: one store item per policy of `state.set` (a plan's gate found the plan). */
  items(state: RequestState<N>): Outcome | undefined | Promise<Outcome | undefined>
  /** The store items of `policies` for the request; `undefined` when a key needs the unknown address. */
  itemsOf(state: RequestState<N>, policies: readonly Policy<N>[]): ConsumeItem[] | undefined
}

/** Compile the identify stage of one limiter, once. */
export function compileIdentify<N>(parts: IdentifyParts<N>): Identify<N> {
  const { sets, skip, deny, user, allowList, denyList, warnings, report, plan, noAddress, denied } = parts
  const { overrides } = parts
  const { needsRoute, routeKeyOf, routed } = sets
  const needsIp = allowList !== undefined || denyList !== undefined || parts.planNeedsIp || sets.needsIp
  const base = sets.get(undefined, undefined)

  /**
   * A step of a yes/no function of the app's (`skip`, `deny`): `true` ends the request with `yes(info)`; any
   * other answer goes on, and one that throws or rejects goes on too (skips nothing, denies nothing), reported.
   */
  function yesNoStep(
    option: 'skip' | 'deny',
    fn: (req: N, info: RequestInfo<N>) => unknown,
    yes: (info: RequestInfo<N>) => Outcome,
  ): Step<N> {
    const answer = (value: unknown, info: RequestInfo<N>): Outcome | undefined => {
      if (value instanceof FunctionFailure) report(value.error, info)
      else if (value === true) return yes(info)
      return undefined
    }
    return (state) => {
      const value = callAppFunction(option, fn, state.info)
      return value instanceof Promise ? value.then((v) => answer(v, state.info)) : answer(value, state.info)
    }
  }

  const addressOf = compileClientAddresses({ allowList, denyList, ipv6Subnet: parts.ipv6Subnet })

  /**
   * Who is asking. The fields the limiter reads, each once: a field the adapter or the framework could not read
   * is unknown from here on (reported as the request's failure, never the store's), and the setups the request
   * reveals as wrong are warned about. Then the client address, when a policy or a list needs it: normalised;
   * a request from the deny list is refused (403), and one from the allow list is not counted.
   */
  function clientStep(state: RequestState<N>): Outcome | undefined {
    const request = state.info
    let info = needsRoute ? readableRequest(request, 'route', report) : request
    const routeRead = info === request
    let raw: string | undefined
    if (needsIp) {
      // Read once: an adapter reads the address from the framework on first use, which may throw.
      try {
        raw = info.ip
      } catch (error) {
        info = unreadable(info, 'ip', error, report)
      }
    }
    warnings.check(info, needsRoute && routeRead)
    state.info = info
    if (!needsIp) return undefined
    const address = addressOf(raw)
    if (address === undefined) return undefined // unknown: a policy that keys on it answers noAddress
    if (address.denied) return denied(info)
    if (address.allowed) return SKIPPED
    state.ip = address.ip
    return undefined
  }

  /**
   * The set of policies that decides the request (by plan and route tier), the app's functions it calls, and
   * one store item per policy.
   */
  function policiesStep(state: RequestState<N>): Outcome | undefined | Promise<Outcome | undefined> {
    const { info } = state
    const routeKey = routed ? routeKeyOf(info) : undefined
    const set =
      state.plan === undefined && routeKey === undefined ? base : sets.get(state.plan?.plan, routeKey)
    state.set = set
    if (set.needsRoute) state.route = routeText(info.route)
    if (set.callsApp) {
      const gathered = gather(state, set)
      if (gathered !== undefined) return gathered.then(() => items(state))
    }
    return items(state)
  }

  function gather(state: RequestState<N>, set: PolicySet<N>): undefined | Promise<undefined> {
    const { keyFunctions, costFunctions } = set
    const userOf = set.needsUser ? user : undefined
    if (!set.callsApp) return undefined
    const { info } = state
    const userValue = userOf === undefined ? undefined : callAppFunction('user', userOf, info)
    const keyValues = keyFunctions.map((fn) => callAppFunction('key', fn, info))
    const costValues = costFunctions.map((fn) => callAppFunction('cost', fn, info))
    const keep = (u: unknown, keys: readonly unknown[], costs: readonly unknown[]): undefined => {
      if (userOf !== undefined) state.user = keyText('user', u, (e) => report(e, info))
      state.values = keys.map((value) => keyText('key', value, (e) => report(e, info)))
      state.costs = costs.map((value, i) => costValue(value, fallbackOf(set, i), (e) => report(e, info)))
      if (overrides !== undefined) {
        if (userOf !== undefined) state.userId = idText(u)
        if (keys.length > 0) state.ids = keys.map(idText)
      }
      return undefined
    }
    if (!(userValue instanceof Promise) && !anyPromise(keyValues) && !anyPromise(costValues)) {
      return keep(userValue, keyValues, costValues)
    }
    return Promise.all([userValue, Promise.all(keyValues), Promise.all(costValues)]).then(
      ([u, keys, costs]) => keep(u, keys, costs),
    )
  }

  function itemsOf(state: RequestState<N>, policies: readonly Policy<N>[]): ConsumeItem[] | undefined {
    const count = policies.length
    const items: ConsumeItem[] = new Array(count)
    for (let i = 0; i < count; i++) {
      const policy = policies[i]!
      const key = policy.keyer(state, policy.scope)
      if (key === undefined) return undefined
      const cost = policy.cost ?? state.costs[policy.costIndex] ?? policy.fallbackCost
      items[i] =
        policy.ban === undefined
          ? { algorithm: policy.algorithm, key, cost }
          : { algorithm: policy.algorithm, key, cost, ban: policy.ban }
    }
    return items
  }

  /** One store item per policy; a key that needs the unknown client address is answered, never shared. */
  function itemsStep(state: RequestState<N>): Outcome | undefined {
    // itemsOf's loop, written out: the one every request takes.
    const policies = state.set.policies
    const count = policies.length
    const items: ConsumeItem[] = new Array(count)
    for (let i = 0; i < count; i++) {
      const policy = policies[i]!
      const key = policy.keyer(state, policy.scope)
      if (key === undefined) return noAddress(state.info)
      const cost = policy.cost ?? state.costs[policy.costIndex] ?? policy.fallbackCost
      items[i] =
        policy.ban === undefined
          ? { algorithm: policy.algorithm, key, cost }
          : { algorithm: policy.algorithm, key, cost, ban: policy.ban }
    }
    state.items = items
    return undefined
  }

  /**
   * With overrides: one store item per policy, each policy with overrides looking up the request's caller (one
   * Map lookup). An override changes the item's algorithm and key scope; `false` takes the policy out of the
   * request (a request that no policy is left to limit is not counted, as a skipped one). The first request
   * waits for the store's runtime overrides.
   */
  function overriddenItemsStep(state: RequestState<N>): Outcome | undefined | Promise<Outcome | undefined> {
    if (loading !== undefined) {
      if (loading === null) loading = overrides!.ready()
      if (loading !== undefined) return loaded(loading).then(() => overriddenItemsStep(state))
    }
    // itemsStep's loop, with the lookup: the one every request of a limiter with overrides takes.
    const policies = state.set.policies
    const count = policies.length
    const items: ConsumeItem[] = new Array(count)
    let dropped = 0
    let overridden = false
    for (let i = 0; i < count; i++) {
      const policy = policies[i]!
      const table = policy.overrides
      let algorithm = policy.algorithm
      let key: string | undefined
      if (table === undefined) key = policy.keyer(state, policy.scope)
      else {
        const found = table.resolve(state)
        if (found === undefined) key = policy.keyer(state, policy.scope)
        else if (found === false) {
          dropped |= 1 << i
          continue
        } else {
          key = table.keyer(state, found.scope)
          algorithm = found.algorithm
          overridden = true
        }
      }
      if (key === undefined) return noAddress(state.info)
      const cost = policy.cost ?? state.costs[policy.costIndex] ?? policy.fallbackCost
      items[i] = { algorithm, key, cost }
    }
    if (dropped !== 0) return dropItems(state, items, dropped)
    if (overridden) state.set = state.set.overridden ?? state.set
    state.items = items
    return undefined
  }

  /** The items left once `false` overrides dropped some: the set without those policies, or SKIPPED when none is left. */
  function dropItems(state: RequestState<N>, items: ConsumeItem[], dropped: number): Outcome | undefined {
    const kept = items.filter((item) => item !== undefined)
    if (kept.length === 0) return SKIPPED
    state.set = sets.without(state.set, dropped)
    state.items = kept
    return undefined
  }

  /** `null` until the first request starts reading the store's runtime overrides; a promise while it reads. */
  let loading: Promise<void> | undefined | null = overrides === undefined ? undefined : null

  /** The first read of the runtime overrides, done: no request waits any more. */
  function loaded(reading: Promise<void>): Promise<void> {
    return reading.then(() => {
      loading = undefined
    })
  }

  /** With plans: the runtime overrides are read before the plan step (its gate counts with overrides too). */
  function overridesReadyStep(): Promise<undefined> | undefined {
    if (loading === null) loading = overrides!.ready()
    return loading === undefined ? undefined : loaded(loading).then(() => undefined)
  }

  const items = overrides === undefined ? itemsStep : overriddenItemsStep

  /**
   * The gate's items (plan-gate.ts), with overrides: as {@link itemsOf}, the policies a `false` drops left out of
   * the items and of `state.set` (the gate's set, whose policies are `policies`).
   */
  function overriddenItemsOf(
    state: RequestState<N>,
    policies: readonly Policy<N>[],
  ): ConsumeItem[] | undefined {
    const items: ConsumeItem[] = []
    let dropped = 0
    for (let i = 0; i < policies.length; i++) {
      const policy = policies[i]!
      const found = policy.overrides?.resolve(state)
      if (found === false) {
        dropped |= 1 << i
        continue
      }
      const key =
        found === undefined ? policy.keyer(state, policy.scope) : policy.overrides!.keyer(state, found.scope)
      if (key === undefined) return undefined
      const cost = policy.cost ?? state.costs[policy.costIndex] ?? policy.fallbackCost
      items.push({ algorithm: found === undefined ? policy.algorithm : found.algorithm, key, cost })
    }
    if (dropped !== 0 && items.length > 0) state.set = sets.without(state.set, dropped)
    else if (dropped === 0) state.set = state.set.overridden ?? state.set
    return items
  }

  // A denial comes before `skip` (and the allow list): the client is identified first when anything can deny it.
  const steps: Step<N>[] = []
  if (denyList !== undefined || deny !== undefined) {
    steps.push(clientStep)
    if (deny !== undefined) steps.push(yesNoStep('deny', deny, denied))
    if (skip !== undefined) steps.push(yesNoStep('skip', skip, () => SKIPPED))
  } else {
    if (skip !== undefined) steps.push(yesNoStep('skip', skip, () => SKIPPED))
    steps.push(clientStep)
  }
  if (overrides !== undefined && plan !== undefined) steps.push(overridesReadyStep)
  if (plan !== undefined) steps.push(plan)
  steps.push(policiesStep)
  return {
    steps,
    gather,
    itemsOf: overrides === undefined ? itemsOf : overriddenItemsOf,
    items: overrides === undefined ? itemsStep : overriddenItemsStep,
  }
}

/** The fallback cost of the first policy that uses cost function `index` (for the message). */
function fallbackOf(set: PolicySet, index: number): number {
  return set.policies.find((p) => p.costIndex === index)?.fallbackCost ?? 1
}
