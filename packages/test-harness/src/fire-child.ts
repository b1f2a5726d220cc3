// The forked side of the exactness tests: a separate "API server" that takes orders over IPC. Imported by
// fixtures (`@floodgate/test-harness/fire-child`), which are bundled and forked; nothing here imports vitest.
import type { Algorithm, Decision } from '@floodgate/core'
import type { AlgorithmKind } from '@floodgate/core/internal'
// The algorithms alone, from their source: the package's index brings vitest along, which a forked child does
// not run under.
import { quotaAlgorithm } from '../../testing/src/algorithms.js'

/** What one order asks a child to fire: `requests` decisions at once, on a `limit` of `kind` (see `quotaAlgorithm`). */
export interface FireOrder {
  kind: AlgorithmKind
  limit: number
  requests: number
}

/** What a child reports after firing. */
export interface FireReport {
  admitted: number
  /** Decisions the store's backend did not take (a fail mode, a cache): none, in a healthy run. */
  notFromStore: number
}

/** The messages a child takes, in order: an order to arm (answered `{ ready: true }`), fire, exit. */
export type FireMessage<O extends FireOrder> =
  | { type: 'order'; order: O }
  | { type: 'fire' }
  | { type: 'exit' }

/**
 * Serve fire orders in this (forked) process: `arm(order, algorithm)` prepares (connecting once, for the first
 * order) and returns what one request decides, `algorithm` being the order's `quotaAlgorithm(kind, limit)`; `'fire'` sends the order's requests all at once and reports how many were
 * admitted and how many decisions did not come from `source`, the backend; `'exit'` calls `close` and exits.
 * Says `{ loaded: true }` first, so the parent knows the child is listening.
 *
 * @example serveFireOrders({ source: 'postgres', arm: (order) => ..., close: () => pool.end() })
 */
export function serveFireOrders<O extends FireOrder>(parts: {
  source: string
  arm: (order: O, algorithm: Algorithm) => Promise<() => Promise<Decision & { source: string }>>
  close: () => Promise<unknown>
}): void {
  let armed: (() => Promise<void>) | undefined
  process.on('message', async (message: FireMessage<O>) => {
    if (message.type === 'exit') {
      await parts.close()
      process.exit(0)
    }
    if (message.type === 'fire') {
      await armed?.()
      return
    }
    const { order } = message
    const once = await parts.arm(order, quotaAlgorithm(order.kind, order.limit))
    armed = async () => {
      const decisions = await Promise.all(Array.from({ length: order.requests }, once))
      const report: FireReport = {
        admitted: decisions.filter((d) => d.allowed).length,
        notFromStore: decisions.filter((d) => d.source !== parts.source).length,
      }
      process.send!(report)
    }
    process.send!({ ready: true })
  })
  process.send!({ loaded: true })
}
