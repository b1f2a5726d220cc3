import { NEVER } from '../algorithms/decide.js'
import { mostRestrictiveIndex } from '../consume-all.js'
import { CLOSED_RETRY_AFTER_MS } from '../failure-policy.js'
import type { SpentItem } from '../refund-items.js'
import type { ConsumeItem, Decision } from '../types.js'
import { retryAfterSeconds } from './answer.js'
import { callAppFunction, FunctionFailure } from './app-functions.js'
import {
  bannedBody,
  COST_EXCEEDS_LIMIT_STATUS,
  compileBody,
  costExceedsLimitBody,
  deniedBody,
  INTERNAL_ERROR_BODY,
  JSON_TYPE,
  NO_ADDRESS_BODY,
  PROBLEM_TYPE,
  quotaExceededBody,
  type ResponseFormat,
  UNAVAILABLE_BODY,
} from './bodies.js'
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
// be written) are made here too. Their headers are formatted in headers.ts, their bodies written in bodies.ts.

/** The index of the first decision that is a ban, or -1. */
function bannedIndex(decisions: readonly Decision[]): number {
  for (let i = 0; i < decisions.length; i++) if ((decisions[i]!.bannedMs ?? 0) > 0) return i
  return -1
}

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
