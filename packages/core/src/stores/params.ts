import type { Algorithm, AlgorithmKind } from '../types.js'

/** How many parameter slots every kind's step has in a remote store (the most any kind takes). */
export const PARAM_SLOTS = 4

/**
 * The parameters each algorithm kind's step takes, in order, from `algorithm.params`: the one order the
 * RedisStore's scripts and the PostgresStore's functions read them in.
 */
export const STEP_PARAMS: Readonly<Record<AlgorithmKind, readonly string[]>> = {
  'fixed-window': ['limit', 'windowMs'],
  'sliding-window-counter': ['limit', 'windowMs'],
  'sliding-window-log': ['limit', 'windowMs'],
  'token-bucket': ['capacity', 'rate', 'intervalMs', 'shape'],
  'leaky-bucket': ['capacity', 'rate', 'intervalMs', 'shape'],
  gcra: ['emissionMs', 'toleranceMs', 'burst'],
  'calendar-quota': ['limit', 'period', 'offsetMs'],
  concurrency: ['limit', 'leaseMs'],
}

/**
 * An algorithm's parameters in its kind's {@link STEP_PARAMS} order. Throws a `TypeError` for a kind the
 * stores have no step for (`store` names the store in the message) or a parameter that is not a finite number.
 *
 * @example stepParams(gcra({ rate: 10 }), 'RedisStore') // [100, 0, 1]
 */
export function stepParams(algorithm: Algorithm, store: string): number[] {
  const names = STEP_PARAMS[algorithm.kind]
  if (!names) {
    throw new TypeError(
      `${store} runs the algorithms of @floodgate/core; it has no step for kind '${String(algorithm.kind)}'`,
    )
  }
  return names.map((name) => {
    const value = algorithm.params[name]
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new TypeError(`Expected the ${algorithm.kind} algorithm to have a numeric params.${name}`)
    }
    return value
  })
}
