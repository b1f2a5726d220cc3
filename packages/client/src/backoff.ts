import { argument, custom, oneOf, parseFields, required, requiredNumber } from './schema.js'

/**
 * How a retry's wait is spread:
 * - `'full'`: `random(0, ceiling)`, the one that spreads a herd best;
 * - `'equal'`: `ceiling / 2 + random(0, ceiling / 2)`;
 * - `'decorrelated'`: `min(maxDelay, random(baseDelay, previous * 3))`;
 * - `'none'`: `ceiling`, and exactly `Retry-After` when the server sent one.
 *
 * `ceiling = min(maxDelay, baseDelay * 2^attempt)`, `attempt` being the number of the attempt that was
 * refused (1 for the first).
 */
export type Jitter = 'full' | 'equal' | 'decorrelated' | 'none'

export const JITTERS: readonly Jitter[] = ['full', 'equal', 'decorrelated', 'none']

export interface BackoffInput {
  /** The number of the attempt that was refused: 1 for the first request. */
  readonly attempt: number
  readonly baseMs: number
  readonly maxMs: number
  readonly jitter: Jitter
  /** A number in [0, 1). Anything else is clamped into that range; NaN is 0. */
  readonly random: () => number
  /** `'decorrelated'`: the backoff drawn for the previous retry of this request. */
  readonly previousMs?: number | undefined
}

const unit = (random: () => number): number => {
  const r = random()
  return r > 0 ? Math.min(r, 1) : 0
}

const whole = requiredNumber(0)
const ms = requiredNumber(0)
const jitterField = required<Jitter>(oneOf<Jitter>('full', JITTERS).expected, (v) =>
  JITTERS.includes(v as Jitter),
)

/** What {@link backoffDelay} takes, checked as options are. */
const backoffSchema = {
  attempt: whole,
  baseMs: ms,
  maxMs: ms,
  jitter: jitterField,
  random: required<() => number>('a function returning a number in [0, 1)', (v) => typeof v === 'function'),
  previousMs: custom<number | undefined>(
    () => undefined,
    'a number of ms >= 0',
    (v) => typeof v === 'number' && v >= 0,
  ),
}

/**
 * `min(maxMs, baseMs * 2^attempt)`. Arguments that are not numbers >= 0 throw a `ClientConfigError`.
 *
 * @example backoffCeiling(3, 2000, 30000) // 16000
 */
export function backoffCeiling(attempt: number, baseMs: number, maxMs: number): number {
  argument('backoffCeiling.attempt', attempt, whole)
  argument('backoffCeiling.baseMs', baseMs, ms)
  argument('backoffCeiling.maxMs', maxMs, ms)
  return ceilingOf(attempt, baseMs, maxMs)
}

const ceilingOf = (attempt: number, baseMs: number, maxMs: number): number =>
  Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt, 0), 64))

/**
 * The client's own exponential backoff after `attempt` was refused, jittered.
 *
 * @example backoffDelay({ attempt: 1, baseMs: 2000, maxMs: 30000, jitter: 'full', random: Math.random }) // 0 to 4000
 */
export function backoffDelay(input: BackoffInput): number {
  const { attempt, baseMs, maxMs, jitter, random, previousMs } = parseFields(
    backoffSchema,
    input,
    'backoffDelay',
  )
  const ceiling = ceilingOf(attempt, baseMs, maxMs)
  switch (jitter) {
    case 'full':
      return unit(random) * ceiling
    case 'equal':
      return ceiling / 2 + (unit(random) * ceiling) / 2
    case 'decorrelated': {
      const high = Math.max(baseMs, (previousMs ?? baseMs) * 3)
      return Math.min(maxMs, baseMs + unit(random) * (high - baseMs))
    }
    case 'none':
      return ceiling
  }
}

/**
 * The wait before a retry. Without a server wait, it is {@link backoffDelay}. With one (`Retry-After`, or
 * the reset of a policy at 0), it is that wait plus the jittered backoff, so that clients refused at the
 * same instant spread out after the reset instead of all coming back on it; with `'none'`, exactly the
 * server's wait.
 */
export function retryDelay(serverWaitMs: number | undefined, backoffMs: number, jitter: Jitter): number {
  if (serverWaitMs !== undefined) argument('retryDelay.serverWaitMs', serverWaitMs, ms)
  argument('retryDelay.backoffMs', backoffMs, ms)
  argument('retryDelay.jitter', jitter, jitterField)
  if (serverWaitMs === undefined) return backoffMs
  return jitter === 'none' ? serverWaitMs : serverWaitMs + backoffMs
}
