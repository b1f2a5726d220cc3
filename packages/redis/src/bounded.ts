/** What a bounded call settled with. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown; timedOut: boolean }

/**
 * Settle within `ms`: the call's value or error, or a timeout. Never rejects; a late answer (or error) of
 * the call is consumed, so it can never become an unhandled rejection.
 */
export function bounded<T>(call: Promise<T>, ms: number, timeoutError: () => Error): Promise<Outcome<T>> {
  return new Promise((resolve) => {
    let done = false
    const timer = setTimeout(() => {
      if (done) return
      done = true
      resolve({ ok: false, error: timeoutError(), timedOut: true })
    }, ms)
    call.then(
      (value) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resolve({ ok: true, value })
      },
      (error) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resolve({ ok: false, error, timedOut: false })
      },
    )
  })
}
