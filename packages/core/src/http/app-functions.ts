import { isCost, normalizeCost } from '../cost.js'
import { describeValue } from '../errors.js'
import { guardedCall, HookFailure } from '../guarded-call.js'
import { RateLimitRequestError } from './errors.js'
import { INVALID_KEY, keyValueText } from './key-spec.js'
import type { RequestInfo } from './request-info.js'

/**
 * Calling the app's own functions (`key`, `user`, `cost`, `skip`) on a request. They may be async; whatever
 * they do (throw, reject, return nonsense), the request is still decided, by the rule of each option, and
 * the error is reported once. `failMode` never applies here: it is for a store that cannot answer.
 */

/** What an app function's call settled to: its value, or the error it threw or rejected with. */
export class FunctionFailure {
  constructor(readonly error: RateLimitRequestError) {}
}

const failure = (option: string, cause: unknown) =>
  new FunctionFailure(
    new RateLimitRequestError(
      'ERR_FLOODGATE_FUNCTION_FAILED',
      `The \`${option}\` function failed: ${cause instanceof Error ? cause.message : describeValue(cause)}`,
      { cause, option },
    ),
  )

/**
 * Call `fn(req, info)` through the guard (`guardedCall`). Returns its value, a promise of its value that never
 * rejects, or a {@link FunctionFailure} (also inside the promise) when it threw or rejected.
 */
export function callAppFunction<N>(
  option: string,
  fn: (req: N, info: RequestInfo<N>) => unknown,
  info: RequestInfo<N>,
): unknown {
  const value = guardedCall(fn, info.native, info)
  if (value instanceof HookFailure) return failure(option, value.error)
  if (value instanceof Promise) return failedLater(option, value)
  return value
}

function failedLater(option: string, value: Promise<unknown>): Promise<unknown> {
  return value.then((v) => (v instanceof HookFailure ? failure(option, v.error) : v))
}

/** Whether any of `values` is a promise: then the request waits for them. */
export function anyPromise(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) if (values[i] instanceof Promise) return true
  return false
}

/** A value a key function returned that is not a key, as an error for `onError`. */
export function invalidKeyValue(option: string, value: unknown): RateLimitRequestError {
  return new RateLimitRequestError(
    'ERR_FLOODGATE_INVALID_KEY_VALUE',
    `The \`${option}\` function returned ${describeValue(value)}; expected a string, a finite number, a bigint, an array of these, or nothing. The request was counted by its client address.`,
    { option },
  )
}

/** A value a cost function returned that is not a cost, as an error for `onError`. */
export function invalidCost(option: string, value: unknown, charged: number): RateLimitRequestError {
  return new RateLimitRequestError(
    'ERR_FLOODGATE_INVALID_COST',
    `The \`${option}\` function returned ${describeValue(value)}; expected a finite number >= 0. The request was charged ${charged}.`,
    { option },
  )
}

/**
 * A `user` or key function's answer as a key part: its encoded text; nothing (`undefined`: the request is keyed
 * by its address) when the function failed or answered what is not a key, which is reported.
 */
export function keyText(
  option: string,
  value: unknown,
  report: (error: unknown) => void,
): string | undefined {
  if (value instanceof FunctionFailure) {
    report(value.error)
    return undefined
  }
  const text = keyValueText(value)
  if (text !== INVALID_KEY) return text
  report(invalidKeyValue(option, value))
  return undefined
}

/**
 * A cost function's answer, normalised; `undefined` (the policy's fallback cost, `charged`, applies) when the
 * function failed or answered what is not a cost, which is reported.
 */
export function costValue(
  value: unknown,
  charged: number,
  report: (error: unknown) => void,
): number | undefined {
  if (value instanceof FunctionFailure) {
    report(value.error)
    return undefined
  }
  if (isCost(value)) return normalizeCost(value)
  report(invalidCost('cost', value, charged))
  return undefined
}
