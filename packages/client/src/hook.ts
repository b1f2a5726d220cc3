/**
 * Calling a hook of the app's (`onRetry`): what it throws, and what the promise it returns rejects with, is
 * ignored, with a process warning (`ERR_FLOODGATE_HOOK_FAILED`) once per process where there is a `process`.
 * It never fails the request and never becomes an unhandled rejection. The client has no dependency, so it
 * holds this guard itself; it behaves as core's `callHook`.
 */

let warned = false

function ignore(hook: string, error: unknown): void {
  if (warned) return
  warned = true
  const emit = (globalThis as { process?: { emitWarning?: (m: string, o: object) => void } }).process
    ?.emitWarning
  emit?.(
    `@floodgate/client: the \`${hook}\` hook failed: ${error instanceof Error ? error.message : String(error)}; what it throws or rejects with is ignored (reported once).`,
    { type: 'FloodgateWarning', code: 'ERR_FLOODGATE_HOOK_FAILED' },
  )
}

/**
 * Call `hook(arg)` when there is one; a throw or a rejection is ignored (see above).
 *
 * @example callHook('onRetry', settings.onRetry, event)
 */
export function callHook<A>(name: string, hook: ((arg: A) => unknown) | undefined, arg: A): void {
  if (hook === undefined) return
  try {
    const result = hook(arg)
    if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function')
      Promise.resolve(result).then(undefined, (error: unknown) => ignore(name, error))
  } catch (error) {
    ignore(name, error)
  }
}
