import type { PassAnswer } from '../../http/answer.js'
import type { Awaitable } from '../../types.js'

/**
 * What the app reads of a request the slow-down counted: `req.slowDown` (Express), `request.slowDown`
 * (Fastify), `ctx.state.slowDown` (Koa). `undefined` when it was not counted (the store failed, or the client
 * address is unknown).
 *
 * @example res.json({ slowedBy: req.slowDown?.delay })
 */
export interface RequestSlowDown {
  /** `after`: the requests of a window that go at once. */
  readonly limit: number
  /** This request's number in the window (1 for the first). */
  readonly used: number
  /** Requests left in this window before delays start; never below 0. */
  readonly remaining: number
  /** Whole seconds until the window turns and the count starts again. */
  readonly reset: number
  /** How long this request was delayed, in ms (0: not delayed). */
  readonly delay: number
}

/** The request goes on (after its delay), with these headers on its response. */
export interface SlowDownPass extends PassAnswer {
  /** What the app reads; `undefined` when the request was not counted. */
  readonly slowDown: RequestSlowDown | undefined
}

/** The client went away while its request waited: nothing to send, and nothing more is done for it. */
export interface SlowDownGone {
  readonly kind: 'gone'
}

/** What the slow-down decided for one request: it goes on (maybe later), or its client left. Never refused. */
export type SlowDownOutcome = SlowDownPass | SlowDownGone

/** One request's passage through the slow-down. */
export interface SlowDownEntry {
  /** Settles when the request may go on; never rejects. Synchronous when nothing had to wait. */
  readonly outcome: Awaitable<SlowDownOutcome>
  /**
   * Call when the response has closed (Node's `res` `'close'`): a request still waiting stops waiting at once
   * (its outcome is `gone`). Safe to call more than once, and after the request went on.
   */
  leave(): void
}
