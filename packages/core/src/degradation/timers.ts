/**
 * Timers as the degradation middlewares use them, injectable so tests run on a virtual clock and never sleep.
 * The system's timers are `unref`'d: a queue's deadline never keeps a process alive.
 */
export interface Timers {
  /** Call `fn` once, `ms` from now; returns a handle for `clear`. */
  set(fn: () => void, ms: number): unknown
  clear(handle: unknown): void
}

type NodeTimer = { unref?: () => void }

/** `setTimeout` / `clearTimeout`, unref'd where the runtime allows it. */
export const systemTimers: Timers = {
  set(fn, ms) {
    const handle = setTimeout(fn, ms) as unknown as NodeTimer
    handle.unref?.()
    return handle
  },
  clear(handle) {
    clearTimeout(handle as Parameters<typeof clearTimeout>[0])
  },
}
