import type { Algorithm, Decision } from '@floodgate/core'
import { boundDelay } from '@floodgate/core/internal'
import { type Answer, answerer } from './http-answer.js'
import { readState, type StateReader, stateReader } from './state/inner-state.js'

/** One request of a live session and what it got. */
export interface Exchange {
  /** When it was sent, in ms on the session's clock. */
  readonly at: number
  readonly cost: number
  readonly decision: Decision
  /** The HTTP answer a server would send. */
  readonly answer: Answer
}

/** A live session: one key's state, requests sent one at a time on a clock you drive. */
export interface Session {
  readonly algorithm: Algorithm
  readonly reader: StateReader
  /** Send a request at `now` (ms). */
  send(now: number, cost?: number): Exchange
  /** The decoded state at `now` (`{ tokens: 7.5 }`), without sending anything. */
  state(now: number): Record<string, number>
  /** Start again from a fresh key. */
  reset(): void
}

/**
 * A live session over one algorithm, for an interactive page: the algorithm's own `consume` on one key's
 * state, with the answer a server would give to each request.
 *
 * @example
 * const session = createSession(tokenBucket({ capacity: 10, refillRate: 1, interval: '100ms' }))
 * session.send(clock.now()).answer.status  // 200
 * session.state(clock.now()).tokens        // 9
 */
export function createSession(algorithm: Algorithm): Session {
  const reader = stateReader(algorithm)
  const answer = answerer(algorithm, { name: 'playground' })
  let state = new Float64Array(algorithm.stateSize)
  return {
    algorithm,
    reader,
    send(now, cost = 1) {
      const decision = algorithm.consume(state, 0, now, cost)
      if (boundDelay(algorithm, decision)) algorithm.refund(state, 0, now, cost)
      return { at: now, cost, decision, answer: answer(decision, now) }
    },
    state: (now) => readState(reader, state, now),
    reset() {
      state = new Float64Array(algorithm.stateSize)
    },
  }
}
