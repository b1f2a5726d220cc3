// The synced suite's timers for stores that take turns in one process (synced.mjs and ab.mjs beside it).

/**
 * Timers that run only in the time a SyncedStore is given: a sync falls due after `syncEvery` of the store's own
 * slices and runs at the store's next yield, so that in one process its syncs are paid in its own slices, as
 * alone in a process they would be, and not in the other stores'.
 */
export function sliceTimers() {
  let clock = 0
  let pending
  return {
    timers: {
      setTimeout(callback, ms) {
        pending = { callback, due: clock + ms }
        return pending
      },
      clearTimeout(handle) {
        if (handle === pending) pending = undefined
      },
    },
    /** The store's slices have run `ms` more. */
    advance(ms) {
      clock += ms
    },
    /** Run a sync that has fallen due. */
    fire() {
      if (pending && clock >= pending.due) {
        const { callback } = pending
        pending = undefined
        callback()
      }
    },
  }
}
