import { NEVER } from '../algorithms/decide.js'
import { mostRestrictiveIndex } from '../consume-all.js'
import { CLOSED_RETRY_AFTER_MS } from '../failure-policy.js'
import type { SpentItem } from '../refund-items.js'
import type { ConsumeItem, Decision } from '../types.js'
import { retryAfterSeconds } from './answer.js'
import { callAppFunction, FunctionFailure } from './app-functions.js'
import { applyCustomResponse } from './custom-response.js'
import type { FailureAnswers } from './decide.js'
import { RateLimitRequestError } from './errors.js'
import type { RequestState } from './identify.js'
import type { BanInfo, LimitedResponse, RateLimitOptions } from './options/types.js'
import {
  type AnsweredRequest,
  answeredOutcome,
  type Outcome,
  passedOutcome,
  type Releaser,
  undecidedOutcome,
} from './outcome.js'
import type { Reporter } from './report.js'
import type { RequestInfo } from './request-info.js'

// The third stage of a request: every HTTP answer a limiter gives is made here. A decided request passes
// with its rate-limit headers (after its shaping delay), passes as a shadow refusal in dry run, or is refused:
// 429 with `Retry-After` (the quota's "Limit Exceeded" for a usage plan), or 413 when its cost is above the
// limit, or 403 when a policy's `ban` refused it (`onBanned` on the refusal that started the ban). The app's
// `message`, `onLimited` and `handler` are called here. The answers to requests no policy
// decided (503 when the store failed closed, 500 for an unknown client address or an answer that could not
// be written) are made here too. Headers are formatted in headers.ts, the one concern beside this one.

/** The refusal body's format: our JSON, or RFC 9457 problem details. */
export type ResponseFormat = 'json' | 'problem+json'

export const JSON_TYPE = 'application/json; charset=utf-8'
export const PROBLEM_TYPE = 'application/problem+json'

/** The status of a request whose cost is above a policy's limit: it can never pass, so waiting is no answer. */
const COST_EXCEEDS_LIMIT_STATUS = 413

/** The default message: `Too many requests, retry in 30 seconds.` */
export const retryMessage = (retryAfter: number): string =>
  `Too many requests, retry in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`

/** The reason phrase of the statuses a limiter sends. */
function statusTitle(status: number): string {
  switch (status) {
    case 429:
      return 'Too Many Requests'
    case 413:
      return 'Content Too Large'
    case 503:
      return 'Service Unavailable'
    case 500:
      return 'Internal Server Error'
    case 403:
      return 'Forbidden'
    default:
      return 'Rate Limited'
  }
}

/** Builds a refusal's body from the refusing policy, the wait in seconds and the message. */
type BodyBuilder = (policy: string, retryAfter: number, message: string | undefined) => string

/**
 * Compile the body builder once. The default body is
 * `{ "error": "rate_limited", "message": "Too many requests, retry in 30 seconds.", "retryAfter": 30, "policy": "ip" }`;
 * `'problem+json'` gives RFC 9457 `{ type, title, status, detail, retryAfter, policy }`. Bodies with the
 * default message are cached per policy and wait, so a refusal costs no serialisation.
 */
function compileBody(format: ResponseFormat, status: number): BodyBuilder {
  const title = statusTitle(status)
  const build =
    format === 'json'
      ? (policy: string, retryAfter: number, message: string) =>
          JSON.stringify({ error: 'rate_limited', message, retryAfter, policy })
      : (policy: string, retryAfter: number, message: string) =>
          JSON.stringify({ type: 'about:blank', title, status, detail: message, retryAfter, policy })
  // Per policy, bodies indexed by the wait in seconds: a refusal looks its body up without building a key.
  const cache = new Map<string, (string | undefined)[]>()
  return (policy, retryAfter, message) => {
    if (message !== undefined || retryAfter > 3_600)
      return build(policy, retryAfter, message ?? retryMessage(retryAfter))
    let bodies = cache.get(policy)
    if (bodies === undefined) {
      bodies = []
      cache.set(policy, bodies)
    }
    let body = bodies[retryAfter]
    if (body === undefined) {
      body = build(policy, retryAfter, retryMessage(retryAfter))
      bodies[retryAfter] = body
    }
    return body
  }
}

/**
 * The body of a request that can never pass: `{ "error": "cost_exceeds_limit", "message", "policy", "cost",
 * "limit" }`, or its problem-details form. It carries no `retryAfter`: waiting does not help.
 */
function costExceedsLimitBody(format: ResponseFormat, policy: string, cost: number, limit: number): string {
  const message = `This request costs ${cost}, more than the ${limit} the '${policy}' policy ever allows at once; it cannot pass however long it waits.`
  if (format === 'json') return JSON.stringify({ error: 'cost_exceeds_limit', message, policy, cost, limit })
  const status = COST_EXCEEDS_LIMIT_STATUS
  return JSON.stringify({
    type: 'about:blank',
    title: statusTitle(status),
    status,
    detail: message,
    policy,
    cost,
    limit,
  })
}

/** The RateLimit draft's problem type for a request over its quota. */
const QUOTA_EXCEEDED_TYPE = 'https://iana.org/assignments/http-problem-types#quota-exceeded'

/**
 * The body of a request over its usage plan's quota: `{ error: 'quota_exceeded', message: 'Limit Exceeded',
 * retryAfter, policy }`, or, as problem details, the RateLimit draft's `quota-exceeded` type with
 * `violated-policies`.
 */
function quotaExceededBody(format: ResponseFormat, policy: string, retryAfter: number): string {
  if (format === 'json') {
    return JSON.stringify({ error: 'quota_exceeded', message: 'Limit Exceeded', retryAfter, policy })
  }
  return JSON.stringify({
    type: QUOTA_EXCEEDED_TYPE,
    title: 'Limit Exceeded',
    status: 429,
    detail: `The quota is used up; it comes back in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
    'violated-policies': [policy],
    retryAfter,
    policy,
  })
}

/** The body of a request whose client address is unknown (see `ERR_FLOODGATE_NO_CLIENT_ADDRESS`). */
const NO_ADDRESS_BODY = JSON.stringify({
  error: 'client_address_unknown',
  message: 'The client address is unknown, so this request cannot be rate limited.',
})

/** The body when the store failed and `failMode` is `'closed'`. */
const UNAVAILABLE_BODY = JSON.stringify({
  error: 'rate_limiter_unavailable',
  message: 'The rate limiter is unavailable; try again shortly.',
})

/** The body when a refusal could not be sent as configured (see `ERR_FLOODGATE_INVALID_RESPONSE`). */
const INTERNAL_ERROR_BODY = JSON.stringify({
  error: 'internal_error',
  message: 'The server could not send its answer to this request.',
})

/**
 * The body of a denied request (`denyList`, `deny`): 403 `{ "error": "denied", "message" }`, or its
 * problem-details form. No `retryAfter`: waiting does not help.
 */
function deniedBody(format: ResponseFormat): string {
  const message = 'This client is not allowed.'
  if (format === 'json') return JSON.stringify({ error: 'denied', message })
  return JSON.stringify({ type: 'about:blank', title: statusTitle(403), status: 403, detail: message })
}

/** The default message of a banned request: `Too many refused requests; banned for 3600 seconds.` */
export const bannedMessage = (retryAfter: number): string =>
  `Too many refused requests; banned for ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`

/**
 * The body of a banned request (a policy's `ban`): 403 `{ "error": "banned", "message", "retryAfter", "policy" }`,
 * or its problem-details form.
 */
function bannedBody(format: ResponseFormat, policy: string, retryAfter: number): string {
  const message = bannedMessage(retryAfter)
  if (format === 'json') return JSON.stringify({ error: 'banned', message, retryAfter, policy })
  return JSON.stringify({
    type: 'about:blank',
    title: statusTitle(403),
    status: 403,
    detail: message,
    retryAfter,
    policy,
  })
}

/** The index of the first decision that is a ban, or -1. */
function bannedIndex(decisions: readonly Decision[]): number {
  for (let i = 0; i < decisions.length; i++) if ((decisions[i]!.bannedMs ?? 0) > 0) return i
  return -1
}

/** The answers of a request without a usage plan (plans.ts): 401, 403, 503, 500. */
export const PLAN_BODIES = {
  /** No API key, and no `anonymousPlan` (401). */
  apiKeyRequired: JSON.stringify({ error: 'api_key_required', message: 'This API needs an API key.' }),
  /** An API key no plan knows (403). */
  apiKeyUnknown: JSON.stringify({ error: 'api_key_unknown', message: 'This API key is not known.' }),
  /** The plan of an API key could not be looked up (503). */
  planUnavailable: JSON.stringify({
    error: 'plan_unavailable',
    message: "The API key's plan could not be looked up; try again shortly.",
  }),
  /** `planOf` named a plan `plans` lacks (500). */
  unknownPlan: JSON.stringify({
    error: 'internal_error',
    message: 'The server could not decide this request.',
  }),
} as const

const NO_STORE = { 'cache-control': 'no-store' }

/** How long `failMode: 'closed'` asks a client to wait, in `Retry-After`'s whole seconds. */
const CLOSED_RETRY_AFTER = String(retryAfterSeconds(CLOSED_RETRY_AFTER_MS))

/**
 * The items a request spent, each with the lease its decision holds (`concurrency`), to give back when its
 * response ends (see {@link spent}).
 */
function leased(items: ConsumeItem[], decisions: readonly Decision[]): SpentItem[] | undefined {
  const held: SpentItem[] = new Array(items.length)
  for (let i = 0; i < items.length; i++) {
    const lease = decisions[i]?.lease
    held[i] = lease === undefined ? items[i]! : { ...items[i]!, lease }
  }
  return spent(held)
}

/** The items a request spent (cost > 0), to give back on a refund; the array itself when all did. */
function spent<I extends ConsumeItem>(items: I[]): I[] | undefined {
  let free = 0
  for (let i = 0; i < items.length; i++) if (items[i]!.cost === 0) free++
  if (free === 0) return items
  return free === items.length ? undefined : items.filter((item) => item.cost > 0)
}

const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The respond stage of one limiter: the answer to a decided request, and to one no policy decided. */
export interface Respond<N> extends FailureAnswers<N> {
  /** The answer to a request the store decided: a pass (after its delay), a shadow refusal, or a refusal. */
  decided(state: RequestState<N>): Outcome | Promise<Outcome>
  /** The client address is unknown: 500, never a shared key (in dry run, the request goes on). */
  noAddress(info: RequestInfo<N>): Outcome
  /** The request is denied (`denyList`, `deny`): 403, before any store call (in dry run, it goes on). */
  denied(info: RequestInfo<N>): Outcome
  /**
   * An answer of the limiter's own that is not a refusal (a usage plan's 401, 403, 503 or 500), with
   * `Cache-Control: no-store`; in dry run the request goes on, undecided.
   */
  answer(status: number, body: string, error?: unknown, headers?: Record<string, string>): Outcome
  /** The adapter could not write an outcome: 500, reported as `ERR_FLOODGATE_RESPONSE_FAILED`. */
  writeFailed(error: unknown, info: RequestInfo<N>): AnsweredRequest
}

/** Compile the respond stage of one limiter, once. */
export function compileRespond<N>(parts: {
  options: Pick<RateLimitOptions<N>, 'message' | 'onLimited' | 'handler' | 'onBanned'>
  /** Whether a policy has a `ban`: only then are decisions looked at for one. */
  bans: boolean
  /** The status of a refusal (`statusCode`). */
  status: number
  format: ResponseFormat
  /** How a shaped request waits its `delayMs` (the `sleep` option); a timer when not given. */
  sleep: ((ms: number) => Promise<void>) | undefined
  clock: (() => number) | undefined
  dryRun: boolean
  report: Reporter<N>
  /** What can give back what a passed request spent (the limiter's refunds). */
  owner: Releaser
  /** Whether a policy holds leases (`concurrency`): a passed request keeps its decisions' leases to release. */
  leases?: boolean
}): Respond<N> {
  const { status, format, clock, dryRun, report, owner, leases, bans } = parts
  const { message, onLimited, handler, onBanned } = parts.options
  const sleep = parts.sleep ?? timerSleep
  const contentType = format === 'problem+json' ? PROBLEM_TYPE : JSON_TYPE
  const bodyOf = compileBody(format, status)
  const deniedText = deniedBody(format)

  function decided(state: RequestState<N>): Outcome | Promise<Outcome> {
    const { set, items, info } = state
    const { policies, writeHeaders } = set
    const raw = state.decided!
    const decisions = Array.isArray(raw) ? raw : [raw]
    let delayMs = 0
    for (let i = 0; i < policies.length; i++) {
      const d = decisions[i]!
      d.policy = policies[i]!.name
      if (d.delayMs > delayMs) delayMs = d.delayMs
    }
    const ban = bans ? bannedIndex(decisions) : -1
    if (ban !== -1 && !dryRun) return banned(decisions, decisions[ban]!, info, state.plan?.plan)
    const chosen = ban !== -1 ? ban : mostRestrictiveIndex(decisions)
    const decision = decisions[chosen]!
    const headers: Record<string, string> = {}
    if (writeHeaders)
      writeHeaders(headers, decisions, chosen, set.needsNow ? (clock ? clock() : Date.now()) : 0, items)
    const plan = state.plan?.plan
    if (decision.allowed) {
      const passed = passedOutcome({
        headers,
        decisions,
        decision,
        delayMs,
        limited: false,
        items: leases ? leased(items, decisions) : spent(items),
        owner,
        plan,
      })
      return delayMs > 0 ? after(delayMs, passed, info) : passed
    }
    if (dryRun) {
      const shadow = passedOutcome({
        headers,
        decisions,
        decision,
        delayMs: 0,
        limited: true,
        items: undefined,
        owner: undefined,
        plan,
        banned: ban !== -1,
      })
      limited(shadow, info)
      if (ban !== -1 && decision.bannedNow === true) banStarted(decision, shadow, info)
      return shadow
    }
    headers['cache-control'] = 'no-store'
    const refused =
      decision.retryAfterMs === NEVER
        ? answeredOutcome({
            status: COST_EXCEEDS_LIMIT_STATUS,
            headers,
            body: costExceedsLimitBody(format, decision.policy, items[chosen]!.cost, decision.limit),
            contentType,
            limited: true,
            decisions,
            decision,
            plan,
          })
        : refusal(headers, decisions, decision, policies[chosen]!.role === 'quota', info, plan)
    limited(refused, info)
    return handler ? customize(refused, info) : refused
  }

  /**
   * 403 `{ "error": "banned" }` with `Retry-After` (whole seconds until the ban ends) and no rate-limit headers:
   * a policy's `ban` refused the request. `onLimited` is called, and `onBanned` when this refusal started the ban.
   */
  function banned(
    decisions: Decision[],
    decision: Decision,
    info: RequestInfo<N>,
    plan: string | undefined,
  ): AnsweredRequest {
    const retryAfter = retryAfterSeconds(decision.retryAfterMs)
    const outcome = answeredOutcome({
      status: 403,
      headers: { 'retry-after': String(retryAfter), ...NO_STORE },
      body: bannedBody(format, decision.policy, retryAfter),
      contentType,
      limited: true,
      decisions,
      decision,
      plan,
      banned: true,
    })
    limited(outcome, info)
    if (decision.bannedNow === true) banStarted(decision, outcome, info)
    return outcome
  }

  /** Tell `onBanned`, if set, that `decision`'s ban has just started; whatever it does, the answer is sent. */
  function banStarted(decision: Decision, outcome: Outcome, info: RequestInfo<N>): void {
    if (!onBanned) return
    const ban: BanInfo = { policy: decision.policy, forMs: decision.bannedMs ?? 0, outcome }
    const done = callAppFunction('onBanned', (req: N) => onBanned(req, ban), info)
    if (done instanceof FunctionFailure) report(done.error, info)
    else if (done instanceof Promise) {
      done.then((settled) => {
        if (settled instanceof FunctionFailure) report(settled.error, info)
      })
    }
  }

  /** 429 with `Retry-After` (whole seconds, at least 1), the app's message or the default body. */
  function refusal(
    headers: Record<string, string>,
    decisions: Decision[],
    decision: Decision,
    quota: boolean,
    info: RequestInfo<N>,
    plan: string | undefined,
  ): AnsweredRequest {
    const retryAfter = retryAfterSeconds(decision.retryAfterMs)
    headers['retry-after'] = String(retryAfter)
    const text = messageOf(info, decision)
    return answeredOutcome({
      status,
      headers,
      body:
        quota && text === undefined
          ? quotaExceededBody(format, decision.policy, retryAfter)
          : bodyOf(decision.policy, retryAfter, text),
      contentType,
      limited: true,
      decisions,
      decision,
      plan,
    })
  }

  /**
   * `outcome` once the `sleep` of its delay is over; at once when `sleep` failed (reported: the request is not
   * held back any longer).
   */
  function after(delayMs: number, outcome: Outcome, info: RequestInfo<N>): Outcome | Promise<Outcome> {
    const settled = (waited: unknown) => {
      if (waited instanceof FunctionFailure) report(waited.error, info)
      return outcome
    }
    const wait = callAppFunction('sleep', () => sleep(delayMs), info)
    return wait instanceof Promise ? wait.then(settled) : settled(wait)
  }

  /** The app's message for a refusal's body, or `undefined` for the default. */
  function messageOf(info: RequestInfo<N>, decision: Decision): string | undefined {
    if (typeof message !== 'function') return message
    const text = callAppFunction('message', (req: N, i: RequestInfo<N>) => message(req, i, decision), info)
    if (text instanceof FunctionFailure) {
      report(text.error, info)
      return undefined
    }
    return typeof text === 'string' ? text : undefined
  }

  /** Tell `onLimited`, if set; whatever it does, the refusal is still sent. */
  function limited(result: Outcome, info: RequestInfo<N>): void {
    if (!onLimited) return
    const done = callAppFunction('onLimited', (req: N) => onLimited(req, result), info)
    if (done instanceof FunctionFailure) report(done.error, info)
    else if (done instanceof Promise) {
      done.then((settled) => {
        if (settled instanceof FunctionFailure) report(settled.error, info)
      })
    }
  }

  /** The app's own `handler`: its response, the default refusal when it fails, or a 500 it cannot be sent. */
  function customize(result: AnsweredRequest, info: RequestInfo<N>): Outcome | Promise<Outcome> {
    const apply = (response: unknown): Outcome => {
      if (response instanceof FunctionFailure) {
        report(response.error, info)
        return result // the default refusal
      }
      const problem = applyCustomResponse(result, response as LimitedResponse | undefined)
      return problem ? internalError(problem, info, true) : result
    }
    const response = callAppFunction('handler', (req: N, i: RequestInfo<N>) => handler!(req, result, i), info)
    return response instanceof Promise ? response.then(apply) : apply(response)
  }

  function internalError(
    error: RateLimitRequestError,
    info: RequestInfo<N>,
    limited: boolean,
  ): AnsweredRequest {
    report(error, info)
    return answeredOutcome({
      status: 500,
      headers: { ...NO_STORE },
      body: INTERNAL_ERROR_BODY,
      contentType: JSON_TYPE,
      limited,
      error,
    })
  }

  return {
    decided,
    report,
    undecided: undecidedOutcome,
    unavailable: (error) =>
      answeredOutcome({
        status: 503,
        headers: { 'retry-after': CLOSED_RETRY_AFTER, ...NO_STORE },
        body: UNAVAILABLE_BODY,
        contentType: JSON_TYPE,
        limited: false,
        error,
      }),
    noAddress(info) {
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
    },
    denied() {
      if (dryRun) return undecidedOutcome(undefined)
      return answeredOutcome({
        status: 403,
        headers: { ...NO_STORE },
        body: deniedText,
        contentType,
        limited: false,
        denied: true,
      })
    },
    answer(answerStatus, body, error, headers = {}) {
      if (dryRun) return undecidedOutcome(error)
      return answeredOutcome({
        status: answerStatus,
        headers: { ...NO_STORE, ...headers },
        body,
        contentType: JSON_TYPE,
        limited: false,
        error,
      })
    },
    writeFailed(error, info) {
      const reason = new RateLimitRequestError(
        'ERR_FLOODGATE_RESPONSE_FAILED',
        `The response to ${info.method} ${info.path} could not be written: ${error instanceof Error ? error.message : String(error)}. The answer was 500.`,
        { cause: error },
      )
      return internalError(reason, info, false)
    },
  }
}
