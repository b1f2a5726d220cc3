/** Wait `ms`; reject with the signal's reason as soon as it aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

/** The default {@link Sleep}: a timer, cleared when `signal` aborts. */
export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })

/**
 * Wait with `sleep`, but give up as soon as `signal` aborts, whatever `sleep` does with the signal: the
 * promise then rejects with the signal's reason. A `sleep` of the app's that throws rejects the promise with
 * what it threw; one that returns no promise waits nothing.
 */
export function wait(sleepFor: Sleep, ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return new Promise<void>((resolve) => resolve(sleepFor(ms)))
  if (signal.aborted) return Promise.reject(signal.reason)
  let onAbort: () => void = () => {}
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
  })
  const slept = new Promise<void>((resolve) => resolve(sleepFor(ms, signal)))
  return Promise.race([slept, aborted]).finally(() => signal.removeEventListener('abort', onAbort))
}
