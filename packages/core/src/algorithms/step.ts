import * as z from 'zod'
import { isCost } from '../cost.js'
import type { Algorithm, Decision } from '../types.js'
import { algorithmSchema, parseOptions } from '../validate.js'
import { boundDelay } from './bounded-delay.js'

const argumentsSchema = z.object({
  algorithm: algorithmSchema,
  state: z
    .array(z.number({ error: 'a number' }), { error: 'a state from an earlier step, or undefined' })
    .optional(),
  now: z.number({ error: 'a time in ms (a finite number)' }).finite(),
  cost: z.custom<number>(isCost, { error: 'a finite number >= 0' }),
})

/** The result of one pure step: the new state, the decision and how long the state must be kept. */
export interface StepResult {
  state: number[]
  decision: Decision
  /** ms from `now` until the state equals the fresh state and may be dropped (0: drop it now). */
  ttlMs: number
}

/**
 * The pure form of an algorithm, `(state | undefined, now, cost) -> (state, decision, ttl)`: handy for tests,
 * simulations and writing a store. The input state is not modified.
 *
 * @example
 * let state
 * for (const now of [0, 10, 20]) ({ state } = step(tokenBucket({ capacity: 2, refillRate: 1 }), state, now))
 */
export function step(
  algorithm: Algorithm,
  state: readonly number[] | undefined,
  now: number,
  cost = 1,
): StepResult {
  parseOptions(argumentsSchema, { algorithm, state, now, cost }, 'step')
  const buffer = new Float64Array(algorithm.stateSize)
  if (state) buffer.set(state)
  const decision = algorithm.consume(buffer, 0, now, cost)
  if (boundDelay(algorithm, decision)) algorithm.refund(buffer, 0, now, cost) // maxDelay refused it
  const expiresAt = algorithm.expiresAt(buffer, 0)
  return { state: Array.from(buffer), decision, ttlMs: Math.max(0, expiresAt - now) }
}
