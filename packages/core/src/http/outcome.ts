import type { ConsumeItem, Decision } from '../types.js'

/** What can give back what an outcome spent: the limiter that made it. */
export interface Releaser {
  release(outcome: Outcome): void
}

/** What the limiter decided for one request, for the adapter to write out. A denial is a value. */
export interface Outcome {
  /** Whether the request proceeds (in dry run, always). */
  allowed: boolean
  /** Whether a policy refused it (also in dry run, where it proceeds anyway). */
  limited: boolean
  /** Whether it was not counted at all (`skip`, `allowList`). */
  skipped: boolean
  /** The status to answer with when `allowed` is false (429 by default); 0 when the request proceeds. */
  status: number
  /** Headers to set on the response, whether it proceeds or not. Names in lower case. */
  headers: Record<string, string>
  /** The body to send when `allowed` is false. */
  body: string | undefined
  /** The body's content type when `allowed` is false. */
  contentType: string | undefined
  /** How long the request waited (shaping) before it proceeds; the handler has already waited. */
  delayMs: number
  /** One decision per policy, in the order of `limits`. Empty when skipped or undecided. */
  decisions: Decision[]
  /** The decision the headers report: the refusal, or the policy closest to its limit. */
  decision: Decision | undefined
  /** What went wrong when the request could not be decided as usual (see `onError`). */
  error: unknown
  /** What was spent, for refunds; `undefined` when nothing was (or it was given back). */
  items: ConsumeItem[] | undefined
  /**
   * The outcome of an earlier limiter on the same request (an app-wide one before a route's), when the
   * adapter passed it to `handle`. If a later limiter refuses the request, what the earlier ones spent is
   * given back: a refused request spends nothing anywhere.
   */
  previous: Outcome | undefined
  /** The limiter that spent `items`, to give them back. */
  owner: Releaser | undefined
  /** The usage plan the request was decided under, with `plans`. */
  plan?: string
}

// Every outcome is made by one of these literals, with its properties in this order (one shape for the
// adapters to read); each is written out whole rather than made from a default and changed, which would
// allocate the default's headers and decisions only to drop them.
const base = (): Outcome => ({
  allowed: true,
  limited: false,
  skipped: false,
  status: 0,
  headers: {},
  body: undefined,
  contentType: undefined,
  delayMs: 0,
  decisions: [],
  decision: undefined,
  error: undefined,
  items: undefined,
  previous: undefined,
  owner: undefined,
})

/** A request that is not counted (`skip`, `allowList`): no headers, nothing spent. Shared: never mutate it. */
export const SKIPPED: Outcome = Object.freeze({
  ...base(),
  skipped: true,
  headers: Object.freeze({}),
}) as Outcome

/** A request the policies allow: it proceeds with its headers, after `delayMs` when shaped. */
export function passedOutcome(parts: {
  headers: Record<string, string>
  decisions: Decision[]
  decision: Decision
  delayMs: number
  items: ConsumeItem[] | undefined
  owner: Releaser
}): Outcome {
  return {
    allowed: true,
    limited: false,
    skipped: false,
    status: 0,
    headers: parts.headers,
    body: undefined,
    contentType: undefined,
    delayMs: parts.delayMs,
    decisions: parts.decisions,
    decision: parts.decision,
    error: undefined,
    items: parts.items,
    previous: undefined,
    owner: parts.owner,
  }
}

/** A request a policy refuses, in dry run: it proceeds anyway, with the headers of the refusal. */
export function shadowLimitedOutcome(parts: {
  headers: Record<string, string>
  decisions: Decision[]
  decision: Decision
}): Outcome {
  return {
    allowed: true,
    limited: true,
    skipped: false,
    status: 0,
    headers: parts.headers,
    body: undefined,
    contentType: undefined,
    delayMs: 0,
    decisions: parts.decisions,
    decision: parts.decision,
    error: undefined,
    items: undefined,
    previous: undefined,
    owner: undefined,
  }
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
}): Outcome {
  return {
    allowed: false,
    limited: parts.limited,
    skipped: false,
    status: parts.status,
    headers: parts.headers,
    body: parts.body,
    contentType: parts.contentType,
    delayMs: 0,
    decisions: parts.decisions ?? [],
    decision: parts.decision,
    error: parts.error,
    items: undefined,
    previous: undefined,
    owner: undefined,
  }
}

/** A request that proceeds undecided (the store failed and `failMode` is `'open'`, or a dry run). */
export function undecidedOutcome(error: unknown): Outcome {
  const outcome = base()
  outcome.error = error
  return outcome
}
