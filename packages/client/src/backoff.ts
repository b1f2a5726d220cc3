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

/** `min(maxMs, baseMs * 2^attempt)`. */
export const backoffCeiling = (attempt: number, baseMs: number, maxMs: number): number =>
  Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt, 0), 64))

/**
 * The client's own exponential backoff after `attempt` was refused, jittered.
 *
 * @example backoffDelay({ attempt: 1, baseMs: 2000, maxMs: 30000, jitter: 'full', random: Math.random }) // 0 to 4000
 */
export function backoffDelay(input: BackoffInput): number {
  const { attempt, baseMs, maxMs, jitter, random } = input
  const ceiling = backoffCeiling(attempt, baseMs, maxMs)
  switch (jitter) {
    case 'full':
      return unit(random) * ceiling
    case 'equal':
      return ceiling / 2 + (unit(random) * ceiling) / 2
    case 'decorrelated': {
      const high = Math.max(baseMs, (input.previousMs ?? baseMs) * 3)
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
  if (serverWaitMs === undefined) return backoffMs
  return jitter === 'none' ? serverWaitMs : serverWaitMs + backoffMs
}
