import type { Algorithm, AlgorithmKind } from '@floodgate/core'

/** The parameters each algorithm's script takes, in order, from `algorithm.params`. */
const PARAMS: Record<AlgorithmKind, readonly string[]> = {
  'fixed-window': ['limit', 'windowMs'],
  'sliding-window-counter': ['limit', 'windowMs'],
  'sliding-window-log': ['limit', 'windowMs'],
  'token-bucket': ['capacity', 'rate', 'intervalMs', 'shape'],
  'leaky-bucket': ['capacity', 'rate', 'intervalMs', 'shape'],
  gcra: ['emissionMs', 'toleranceMs', 'burst'],
}

/**
 * An algorithm's parameters as script arguments. `String(n)` is the shortest text that parses back to
 * the same double, so the Lua computes with exactly the numbers the TypeScript does.
 */
export function scriptParams(algorithm: Algorithm): string[] {
  const names = PARAMS[algorithm.kind]
  if (!names) {
    throw new TypeError(
      `RedisStore runs the algorithms of @floodgate/core; it has no script for kind '${String(algorithm.kind)}'`,
    )
  }
  return names.map((name) => {
    const value = algorithm.params[name]
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      throw new TypeError(`Expected the ${algorithm.kind} algorithm to have a numeric params.${name}`)
    }
    return String(value)
  })
}
