import { isCost, normalizeCost } from '../cost.js'
import {
  anyPromise,
  callAppFunction,
  FunctionFailure,
  invalidCost,
  invalidKeyValue,
} from './app-functions.js'
import { INVALID_KEY, type KeyFacts, keyValueText, type PlanCaller } from './key-spec.js'
import type { CompiledPolicies } from './policies.js'
import type { RequestInfo } from './request-info.js'

/** What the policies of one request need from the app's functions, settled. */
export interface RequestFacts<N = any> {
  keys: KeyFacts<N>
  /** Each cost function's answer, normalised, or `undefined` when it failed (the policy's fallback applies). */
  costs: (number | undefined)[]
}

/** No values: a request whose policies call no function of the app's (shared, never written). */
const NONE: never[] = []

/** Reports one failure of one request (to `onError`, or as a process warning). */
export type Report = (error: unknown) => void

function keyText(option: string, value: unknown, report: Report): string | undefined {
  if (value instanceof FunctionFailure) {
    report(value.error)
    return undefined
  }
  const text = keyValueText(value)
  if (text !== INVALID_KEY) return text
  report(invalidKeyValue(option, value))
  return undefined
}

function costValue(value: unknown, charged: number, report: Report): number | undefined {
  if (value instanceof FunctionFailure) {
    report(value.error)
    return undefined
  }
  if (isCost(value)) return normalizeCost(value)
  report(invalidCost('cost', value, charged))
  return undefined
}

/**
 * Call the app's `user`, key and cost functions for one request, each once, and settle what they gave by
 * their rules: a user or key that fails is nothing (the request is keyed by its address); a cost that fails
 * is `undefined` (the policy's fallback cost). Synchronous when every function was; else a promise that
 * never rejects. `report` is told of every failure, with the request.
 */
export function gatherFacts<N>(
  compiled: CompiledPolicies<N>,
  user: ((req: N, info: RequestInfo<N>) => unknown) | undefined,
  info: RequestInfo<N>,
  ip: string | undefined,
  route: string,
  plan: PlanCaller | undefined,
  report: (error: unknown, info: RequestInfo<N>) => void,
): RequestFacts<N> | Promise<RequestFacts<N>> {
  // No closure here: a request whose policies call none of the app's functions (the common case) allocates
  // the facts and nothing else.
  if (user === undefined && compiled.keyFunctions.length === 0 && compiled.costFunctions.length === 0) {
    return { keys: { info, ip, route, plan, user: undefined, values: NONE }, costs: NONE }
  }
  return gatherFromFunctions(compiled, user, info, ip, route, plan, (error) => report(error, info))
}

function gatherFromFunctions<N>(
  compiled: CompiledPolicies<N>,
  user: ((req: N, info: RequestInfo<N>) => unknown) | undefined,
  info: RequestInfo<N>,
  ip: string | undefined,
  route: string,
  plan: PlanCaller | undefined,
  report: Report,
): RequestFacts<N> | Promise<RequestFacts<N>> {
  const { keyFunctions, costFunctions } = compiled
  const userValue = user === undefined ? undefined : callAppFunction('user', user, info)
  const keyValues = keyFunctions.map((fn) => callAppFunction('key', fn, info))
  const costValues = costFunctions.map((fn) => callAppFunction('cost', fn, info))
  const settle = (u: unknown, keys: readonly unknown[], costs: readonly unknown[]): RequestFacts<N> => ({
    keys: {
      info,
      ip,
      route,
      plan,
      user: user === undefined ? undefined : keyText('user', u, report),
      values: keys.map((value) => keyText('key', value, report)),
    },
    costs: costs.map((value, i) => costValue(value, fallbackOf(compiled, i), report)),
  })
  if (!(userValue instanceof Promise) && !anyPromise(keyValues) && !anyPromise(costValues)) {
    return settle(userValue, keyValues, costValues)
  }
  return Promise.all([userValue, Promise.all(keyValues), Promise.all(costValues)]).then(([u, keys, costs]) =>
    settle(u, keys, costs),
  )
}

/** The fallback cost of the first policy that uses cost function `index` (for the message). */
function fallbackOf(compiled: CompiledPolicies, index: number): number {
  return compiled.policies.find((p) => p.costIndex === index)?.fallbackCost ?? 1
}
