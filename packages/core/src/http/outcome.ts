import type { SpentItem } from '../refund-items.js'
import type { Decision } from '../types.js'
import type { HttpAnswer, PassAnswer } from './answer.js'
import { NO_HEADERS, seconds } from './answer.js'
import { remainingOf, resetMsOf } from './headers.js'
import { type Settlement, settleChain } from './settle.js'

/** What can give back what an outcome spent: the limiter that made it. */
export interface Releaser {
  release(outcome: Outcome): void
}

/**
 * What the app reads of a request a limiter let through: `req.rateLimit` (Express), `request.rateLimit`
 * (Fastify), `ctx.state.rateLimit` (Koa). It describes the policy closest to its limit, as the headers do.
 * `undefined` when no limiter decided the request (skipped, allow-listed, or let through while the store failed).
 *
 * @example res.json({ remaining: req.rateLimit?.remaining })
 */
export interface RequestRateLimit extends PolicyUsage {
  /** The usage plan the request was decided under, with `plans`. */
  readonly plan: string | undefined
  /** Whether a policy refused the request in dry run (it went on anyway). */
  readonly limited: boolean
  /** Every policy that decided the request, in the order of `limits`. */
  readonly policies: readonly PolicyUsage[]
  /**
   * Settle the request's cost now, for a streamed response that knows it at its end: `cost` is the actual
   * cost, and the difference from what was charged up front is charged (the key may go over its limit) or given
   * back, in every policy that settles (those with a `settle` function: see the `settle` option), of every
   * limiter on the request. The `settle` functions are then not called. Once only: a second call does nothing,
   * nor does one after the response ended and the `settle` functions ran. A cost that is not a finite number
   * >= 0 is reported to `onError` (`ERR_FLOODGATE_INVALID_COST`) and the estimate stands.
   * @example req.rateLimit?.settle(usage.totalTokens)
   */
  settle(cost: number): void
}

/** Where one policy stands after a request. */
export interface PolicyUsage {
  /** The policy's quota (its capacity, for a bucket). */
  readonly limit: number
  /** Units left after this request: a whole number, never below 0. */
  readonly remaining: number
  /** Whole seconds until the policy is back to its full quota (as `RateLimit-Reset` says). */
  readonly reset: number
  /** The policy's name. */
  readonly policy: string
}

/** Where the policy of `decision` stands, as the headers give it. */
const usageOf = (decision: Decision): PolicyUsage => ({
  limit: decision.limit,
  remaining: remainingOf(decision),
  reset: seconds(resetMsOf(decision)),
  policy: decision.policy,
})

/** What the limiter decided for one request: an {@link Answer} for the adapter to write, and its record. */
export type Outcome = (PassOutcome | AnsweredOutcome) & OutcomeRecord

/** An outcome that answers the request here. */
export type AnsweredRequest = AnsweredOutcome & OutcomeRecord

/** The request goes on, after `delayMs` when shaped (the handler has already waited). */
interface PassOutcome extends PassAnswer {
  /** What the app reads as `req.rateLimit`; `undefined` when no policy decided the request. */
  readonly rateLimit: RequestRateLimit | undefined
  readonly delayMs: number
  /** An `onLimited` hook may add to them in dry run. */
  readonly headers: Record<string, string>
  // Absent on a pass; here so that code reading any outcome (hooks, tests) needs no narrowing first.
  readonly status?: undefined
  readonly body?: undefined
  readonly contentType?: undefined
}

/** The request is answered here: a refusal (429, 413), or an error answer (500, 503). */
interface AnsweredOutcome extends HttpAnswer {
  readonly rateLimit?: undefined
  readonly delayMs?: undefined
  // A custom `handler` changes the answer in place before it is sent.
  status: number
  headers: Record<string, string>
  body: string
  contentType: string
}

/** What the limiter keeps of a request: for hooks, metrics and refunds, never written out. */
interface OutcomeRecord {
  /** Whether a policy refused it (also in dry run, where it proceeds anyway). */
  readonly limited: boolean
  /** Whether it was not counted at all (`skip`, `allowList`). */
  readonly skipped: boolean
  /** Whether it was refused outright (`denyList`, `deny`): 403, before any store call. */
  readonly denied: boolean
  /** Whether a policy's `ban` refused it: 403 (also in dry run, where it proceeds anyway). */
  readonly banned: boolean
  /** One decision per policy, in the order of `limits`. Empty when skipped or undecided. */
  readonly decisions: Decision[]
  /** The decision the headers report: the refusal, or the policy closest to its limit. */
  readonly decision: Decision | undefined
  /** What went wrong when the request could not be decided as usual (see `onError`). */
  readonly error: unknown
  /**
   * What was spent, for refunds (with each `concurrency` policy's lease, released when the response ends);
   * `undefined` when nothing was (or it was given back).
   */
  items: SpentItem[] | undefined
  /**
   * The outcome of an earlier limiter on the same request (an app-wide one before a route's). If a later
   * limiter refuses the request, what the earlier ones spent is given back: a refused request spends nothing.
   */
  previous: Outcome | undefined
  /** The limiter that spent `items`, to give them back. */
  readonly owner: Releaser | undefined
  /** The usage plan the request was decided under, with `plans`. */
  readonly plan: string | undefined
  /** What settling the request's cost needs (`settle`), when a policy of the limiter settles and it passed. */
  settlement: Settlement | undefined
}

/** `req.rateLimit`: the policy closest to its limit, as the headers give it, and the way back to its outcome. */
class RateLimitReading implements RequestRateLimit {
  readonly limit: number
  readonly remaining: number
  readonly reset: number
  readonly policy: string
  readonly plan: string | undefined
  readonly limited: boolean
  readonly #outcome: Outcome

  constructor(outcome: Outcome, decision: Decision) {
    this.limit = decision.limit
    this.remaining = remainingOf(decision)
    this.reset = seconds(resetMsOf(decision))
    this.policy = decision.policy
    this.plan = outcome.plan
    this.limited = outcome.limited
    this.#outcome = outcome
  }

  /** Made when read: most apps read the policy closest to its limit alone. */
  get policies(): readonly PolicyUsage[] {
    return this.#outcome.decisions.map(usageOf)
  }

  settle(cost: number): void {
    settleChain(this.#outcome, cost)
  }

  /** The outcome behind what an app read, when a limiter made it. */
  static outcomeOf(reading: RequestRateLimit): Outcome | undefined {
    return #outcome in reading ? reading.#outcome : undefined
  }
}

/** The outcome behind `req.rateLimit` (an earlier limiter's, passed to `handle` as `previous`). */
export const outcomeOf = (reading: RequestRateLimit | undefined): Outcome | undefined =>
  reading === undefined ? undefined : RateLimitReading.outcomeOf(reading)

// Every outcome is made by one of these literals, with its properties in this order (one shape for the
// adapters to read); each is written out whole rather than made from a default and changed.

/** A request that is not counted (`skip`, `allowList`): no headers, nothing spent. Shared: never mutate it. */
export const SKIPPED: Outcome = Object.freeze({
  kind: 'pass',
  headers: NO_HEADERS,
  rateLimit: undefined,
  delayMs: 0,
  limited: false,
  skipped: true,
  denied: false,
  banned: false,
  decisions: [],
  decision: undefined,
  error: undefined,
  items: undefined,
  previous: undefined,
  owner: undefined,
  plan: undefined,
  settlement: undefined,
}) as Outcome

/**
 * A request the policies decided and that goes on: allowed (after `delayMs` when shaped), or refused in dry
 * run (`limited`), with the headers of its decision.
 */
export function passedOutcome(parts: {
  headers: Record<string, string>
  decisions: Decision[]
  decision: Decision
  delayMs: number
  limited: boolean
  items: SpentItem[] | undefined
  owner: Releaser | undefined
  plan: string | undefined
  banned?: boolean
}): Outcome {
  const outcome: Outcome = {
    kind: 'pass',
    headers: parts.headers,
    rateLimit: undefined,
    delayMs: parts.delayMs,
    limited: parts.limited,
    skipped: false,
    denied: false,
    banned: parts.banned ?? false,
    decisions: parts.decisions,
    decision: parts.decision,
    error: undefined,
    items: parts.items,
    previous: undefined,
    owner: parts.owner,
    plan: parts.plan,
    settlement: undefined,
  }
  ;(outcome as { rateLimit: RequestRateLimit }).rateLimit = new RateLimitReading(outcome, parts.decision)
  return outcome
}

/** A request answered here instead of proceeding: a refusal (429), or an error answer (500, 503). */
export function answeredOutcome(parts: {
  status: number
  headers: Record<string, string>
  body: string
  contentType: string
  limited: boolean
  decisions?: Decision[]
  decision?: Decision
  error?: unknown
  plan?: string
  denied?: boolean
  banned?: boolean
}): AnsweredRequest {
  return {
    kind: 'answer',
    status: parts.status,
    headers: parts.headers,
    body: parts.body,
    contentType: parts.contentType,
    limited: parts.limited,
    skipped: false,
    denied: parts.denied ?? false,
    banned: parts.banned ?? false,
    decisions: parts.decisions ?? [],
    decision: parts.decision,
    error: parts.error,
    items: undefined,
    previous: undefined,
    owner: undefined,
    plan: parts.plan,
    settlement: undefined,
  }
}

/** A request that proceeds undecided (the store failed and `failMode` is `'open'`, or a dry run). */
export function undecidedOutcome(error: unknown): Outcome {
  return {
    kind: 'pass',
    headers: {},
    rateLimit: undefined,
    delayMs: 0,
    limited: false,
    skipped: false,
    denied: false,
    banned: false,
    decisions: [],
    decision: undefined,
    error,
    items: undefined,
    previous: undefined,
    owner: undefined,
    plan: undefined,
    settlement: undefined,
  }
}
