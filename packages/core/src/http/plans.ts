import { toMs } from '../duration.js'
import { cacheKeyOf } from '../store-keys/own-copy.js'
import { sha256Text128 } from '../store-keys/sha256.js'
import { callAppFunction, FunctionFailure, invalidKeyValue } from './app-functions.js'
import { PLAN_BODIES } from './bodies.js'
import { RateLimitRequestError } from './errors.js'
import type { PlanCaller } from './key-spec.js'
import type { ParsedRateLimitOptions } from './options/schema.js'
import type { Outcome } from './outcome.js'
import { compilePlanLookup, type PlanAnswer } from './plan-lookup.js'
import type { Reporter } from './report.js'
import type { RequestInfo } from './request-info.js'
import type { Respond } from './respond.js'

/** The usage plan a request is decided under, and the caller its plan counts: its API key or its address. */
export interface PlanOfRequest extends PlanCaller {
  readonly plan: string
}

/** A request on the anonymous plan whose client address is unknown: never one shared bucket. */
export const NO_ADDRESS = Symbol('no client address')

/**
 * A request with no plan to count it under: no API key and no anonymous plan (401), a key `planOf` does not
 * know (403), or a lookup that failed (503, or 500 for a plan `plans` lacks). Its answer is sent once the
 * `limits` keyed per client have counted the request: a flood of made-up keys meets the per-IP limit like any
 * other traffic, and is never counted against a plan or a limit shared by every client.
 */
export class NoPlan {
  constructor(readonly answer: Outcome) {}
}

/**
 * A request whose API key's plan is neither cached nor being looked up: `lookUp` asks `planOf`. The handler
 * spends the `limits` keyed per client first, so a client already over them is refused without a call of
 * `planOf` (see `plan-gate.ts`).
 */
export class PlanLookupNeeded {
  constructor(readonly lookUp: () => Promise<PlanOfRequest | NoPlan>) {}
}

/** A request's plan, or the answer when it has none, or what must happen before it is known. */
export type Resolution = PlanOfRequest | NoPlan | PlanLookupNeeded | typeof NO_ADDRESS

/** Finds the plan of each request, or the answer when there is none. */
export interface PlanResolver<N> {
  /** The plan of a request: from its API key, or the anonymous plan; else a 401, 403, 500 or 503. */
  resolve(info: RequestInfo<N>, ip: string | undefined): Resolution | Promise<Resolution>
  /** The plan of an API key (for usage reports), `undefined` for an unknown key; rejects when lookup fails. */
  planOfKey(apiKey: string): Promise<PlanOfRequest | undefined>
}

/** Compile the plan resolver of a limiter with `plans`. */
export function compilePlanResolver<N>(parts: {
  o: ParsedRateLimitOptions
  report: Reporter<N>
  /** How the limiter answers a request without a plan (respond.ts). */
  answer: Respond<N>['answer']
  now: () => number
}): PlanResolver<N> {
  const { o, report, answer, now } = parts
  const apiKeyOf = o.apiKey as (req: N, info: RequestInfo<N>) => unknown
  const anonymous = o.anonymousPlan
  const lookup = compilePlanLookup<N, PlanOfRequest>({
    planOf: o.planOf as (apiKey: string, req: N) => unknown,
    cache: o.planCache === false ? false : { maxKeys: o.planCache.maxKeys, ttl: o.planCache.ttl as number },
    timeoutMs: toMs(o.planTimeout)!,
    now,
  })
  // A key's caller (the SHA-256 of the key, its store keys once built) is kept in its cached answer, so a
  // request whose plan is cached derives nothing again; nothing else is kept per key (\`planCache: false\`
  // keeps nothing, and each request hashes its key anew).
  const ofKey = (apiKey: string, plan: string): PlanOfRequest => ({
    plan,
    partition: `apikey:${sha256Text128(apiKey)}`,
    keys: [],
  })
  function fromAnswer(
    result: PlanAnswer<PlanOfRequest>,
    apiKey: string,
    info: RequestInfo<N>,
  ): PlanOfRequest | NoPlan {
    if ('caller' in result && result.caller !== undefined) return result.caller
    if ('error' in result) {
      report(result.error, info)
      return new NoPlan(answer(503, PLAN_BODIES.planUnavailable, result.error, { 'retry-after': '1' }))
    }
    if (result.plan === undefined) return new NoPlan(answer(403, PLAN_BODIES.apiKeyUnknown))
    if (!Object.hasOwn(o.plans!, result.plan)) {
      const error = new RateLimitRequestError(
        'ERR_FLOODGATE_UNKNOWN_PLAN',
        `\`planOf\` named the plan '${result.plan}', which \`plans\` does not have (${Object.keys(o.plans!).join(', ')}). The answer was 500.`,
        { option: 'planOf' },
      )
      report(error, info)
      return new NoPlan(answer(500, PLAN_BODIES.unknownPlan, error))
    }
    const caller = ofKey(apiKey, result.plan)
    result.caller = caller
    return caller
  }

  function withKey(
    value: unknown,
    info: RequestInfo<N>,
    ip: string | undefined,
  ): Resolution | Promise<Resolution> {
    let apiKey: string | undefined
    if (value instanceof FunctionFailure) report(value.error, info)
    else if (typeof value === 'string') apiKey = value === '' ? undefined : value
    else if (value !== undefined && value !== null) report(invalidKeyValue('apiKey', value), info)
    if (apiKey === undefined) {
      if (anonymous === undefined) return new NoPlan(answer(401, PLAN_BODIES.apiKeyRequired))
      return ip === undefined ? NO_ADDRESS : { plan: anonymous, partition: `ip:${ip}`, keys: [] }
    }
    const key = apiKey
    const cacheKey = cacheKeyOf(key)
    const known = lookup.known(cacheKey)
    if (known === undefined) {
      return new PlanLookupNeeded(() =>
        Promise.resolve(lookup.answer(key, cacheKey, info.native)).then((r) => fromAnswer(r, key, info)),
      )
    }
    return known instanceof Promise
      ? known.then((r) => fromAnswer(r, key, info))
      : fromAnswer(known, key, info)
  }

  return {
    resolve(info, ip) {
      const value = callAppFunction('apiKey', apiKeyOf, info)
      return value instanceof Promise ? value.then((v) => withKey(v, info, ip)) : withKey(value, info, ip)
    },
    async planOfKey(apiKey) {
      const result = await lookup.answer(apiKey, cacheKeyOf(apiKey), undefined as N)
      if ('error' in result) throw result.error
      if (result.plan === undefined || !Object.hasOwn(o.plans!, result.plan)) return undefined
      return ofKey(apiKey, result.plan)
    },
  }
}
