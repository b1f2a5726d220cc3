import { warnOnce } from './http/warnings.js'

/**
 * Calling a function the app gave Floodgate (a hook such as `onError`, `onLimited` or a store's `onError`, a key,
 * cost or priority function, a queue's handler, a metrics sink's instrument): the one place where what it throws
 * and what it rejects with are caught. A function may be synchronous or async, return a promise or any
 * thenable; none of that can reach the framework as an exception or the process as an unhandled rejection.
 * A synchronous function that returns costs one `try` and two type checks.
 */

/** What a guarded call threw, or what the promise it returned rejected with. */
export class HookFailure {
  constructor(readonly error: unknown) {}
}

const failure = (error: unknown) => new HookFailure(error)

/**
 * Call `fn(a, b, c)` and return what it gave: its value; for a promise (or any thenable) a promise of its value
 * that never rejects (a rejection resolves to a {@link HookFailure}); or a {@link HookFailure} when it threw.
 *
 * @example
 * const value = guardedCall(options.key, req, info)
 * if (value instanceof HookFailure) report(value.error)
 */
export function guardedCall(
  fn: (a: any, b: any, c: any) => unknown,
  a?: unknown,
  b?: unknown,
  c?: unknown,
): unknown {
  try {
    const value = fn(a, b, c)
    if (value instanceof Promise) return value.then(undefined, failure)
    // Any other thenable (a promise of another library): reading `then` may throw too, hence inside the `try`.
    if (
      typeof value === 'object' &&
      value !== null &&
      typeof (value as PromiseLike<unknown>).then === 'function'
    )
      return Promise.resolve(value).then(undefined, failure)
    return value
  } catch (error) {
    return new HookFailure(error)
  }
}

/** Tell `failed` of a failure; what `failed` itself throws is dropped (it is the last word). */
function tell(failed: (error: unknown) => void, error: unknown): void {
  try {
    failed(error)
  } catch {
    // nothing is left to tell
  }
}

function settledLater(result: Promise<unknown>, failed: (error: unknown) => void): void {
  result.then((settled) => {
    if (settled instanceof HookFailure) tell(failed, settled.error)
  })
}

/**
 * Call a hook whose answer is not used (`onError`, `onLimited`, `onRetry`, a metrics instrument): a throw or a
 * rejection goes to `failed`, once per failure, and never further.
 *
 * @example
 * callHook(onError, hookFailed('onError'), error, req, info)
 */
export function callHook(
  hook: (a: any, b: any, c: any) => unknown,
  failed: (error: unknown) => void,
  a?: unknown,
  b?: unknown,
  c?: unknown,
): void {
  const result = guardedCall(hook, a, b, c)
  if (result instanceof HookFailure) tell(failed, result.error)
  else if (result instanceof Promise) settledLater(result, failed)
}

/**
 * Where the failure of a hook goes when nothing else can be told (the error hook itself failed): a process
 * warning, `ERR_FLOODGATE_HOOK_FAILED`, once per process and hook.
 *
 * @example
 * callHook(onError, hookFailed('onError'), error, req, info)
 */
export function hookFailed(hook: string): (error: unknown) => void {
  return (error) =>
    warnOnce(
      'ERR_FLOODGATE_HOOK_FAILED',
      `The \`${hook}\` hook failed: ${error instanceof Error ? error.message : String(error)}; what it threw or rejected with is ignored (reported once).`,
      hook,
    )
}
