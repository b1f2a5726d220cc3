import type { Store } from '@floodgate/core'
import type { VirtualClock } from '../virtual-clock.js'
import type { VirtualTimers } from '../virtual-timers.js'

/** `store`, with the suite's time moved to that of each call that passes one, before the call is made. */
export function onTime(store: Store, clock: VirtualClock, timers: VirtualTimers): Store {
  const at = (now: number | undefined) => {
    if (now !== undefined && now !== clock.now()) timers.advance(now - clock.now())
  }
  const timed: Store = {
    consume(algorithm, key, cost, now) {
      at(now)
      return store.consume(algorithm, key, cost, now)
    },
    peek(algorithm, key, cost, now) {
      at(now)
      return store.peek(algorithm, key, cost, now)
    },
    refund(algorithm, key, cost, now) {
      at(now)
      return store.refund(algorithm, key, cost, now)
    },
    reset: (algorithm, key) => store.reset(algorithm, key),
    close: () => store.close(),
  }
  if (store.charge) {
    timed.charge = (algorithm, key, cost, now) => {
      at(now)
      return store.charge!(algorithm, key, cost, now)
    }
  }
  if (store.consumeAll) {
    timed.consumeAll = (items, now) => {
      at(now)
      return store.consumeAll!(items, now)
    }
  }
  if (store.release) {
    timed.release = (algorithm, key, lease, now) => {
      at(now)
      return store.release!(algorithm, key, lease, now)
    }
  }
  if (store.clear) timed.clear = () => store.clear!()
  if (store.unban) timed.unban = (key) => store.unban!(key)
  if (store.checkAlgorithm) timed.checkAlgorithm = (algorithm) => store.checkAlgorithm!(algorithm)
  return timed
}
