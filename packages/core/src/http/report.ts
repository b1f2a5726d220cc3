import { callHook, hookFailed } from '../guarded-call.js'
import type { RequestInfo } from './request-info.js'
import { MAX_WARNED_CODES, warningCode } from './warnings.js'

/** Reports one failure on a request: to `onError`, or a process warning once per code. */
export type Reporter<N> = (error: unknown, info: RequestInfo<N> | undefined) => void

/**
 * Compile how failures are reported. With `onError`, every failure goes to it (a hook that throws or rejects
 * is ignored, with a process warning once: it must not fail the request, nor end the process). Without it,
 * the first failure of each code is a process warning and later ones are silent (for at most
 * `MAX_WARNED_CODES` codes, each a short string: see `warningCode`).
 */
export function compileReport<N>(
  onError: ((error: unknown, req: N, info: RequestInfo<N>) => void) | undefined,
): Reporter<N> {
  if (onError) {
    const failed = hookFailed('onError')
    return (error, info) => callHook(onError, failed, error, info?.native, info)
  }
  const reported = new Set<string>()
  return (error) => {
    const code = warningCode(error)
    if (reported.has(code) || reported.size >= MAX_WARNED_CODES) return
    reported.add(code)
    const emit = (globalThis as { process?: { emitWarning?: (m: string, o: object) => void } }).process
      ?.emitWarning
    emit?.(
      `@floodgate: ${error instanceof Error ? error.message : String(error)} (reported once; pass onError to see every one)`,
      { type: 'FloodgateWarning', code },
    )
  }
}
