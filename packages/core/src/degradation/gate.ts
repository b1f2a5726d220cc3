import type { HttpAnswer, PassAnswer } from '../http/answer.js'
import type { RequestInfo } from '../http/request-info.js'
import type { Awaitable } from '../types.js'

/** The request proceeds to the app (with no headers of the gate's). */
export interface PassOutcome extends PassAnswer {
  /** The class (queue) it was given. */
  readonly priority: string
  /** How long it waited before it was let in, in ms (0 when it was let in at once). */
  readonly waitedMs: number
}

/** The request is answered here, not passed on: a value, never an exception. */
export interface AnswerOutcome extends HttpAnswer {
  /** 429 (a full queue) or 503 (waited too long, or shed), with `retry-after` and `cache-control`. */
  /** Why: `'queue_full'`, `'queue_timeout'`, `'shed'`. */
  readonly reason: 'queue_full' | 'queue_timeout' | 'shed'
  readonly priority: string
  /** The wait the answer asks for, in ms (`Retry-After` is this, in whole seconds, at least 1). */
  readonly retryAfterMs: number
}

/** The client went away before the request was let in: nothing to send. */
export interface GoneOutcome {
  readonly kind: 'gone'
  readonly priority: string | undefined
}

/** What a degradation middleware decided for one request. */
export type GateOutcome = PassOutcome | AnswerOutcome | GoneOutcome

/** One request's passage through a gate. */
export interface GateEntry {
  /** Settles when the request may proceed or is answered here; never rejects. Synchronous when it can be. */
  readonly outcome: Awaitable<GateOutcome>
  /**
   * Call when the response has ended or the connection closed (Node's `res` `'close'`): a request still
   * waiting leaves its queue at once, one let in gives its place back. Safe to call more than once.
   */
  leave(): void
}

/**
 * The framework-neutral part of `priorityQueue` and `loadShedder`: adapters map their request to a
 * {@link RequestInfo}, call `enter`, call `leave` when the response closes, and write the outcome.
 */
export interface Gate<N = any> {
  enter(info: RequestInfo<N>): GateEntry
  /** Stop the gate's timers and signals (tests, shutdown). Requests still waiting are answered 503. */
  close(): void
}
