import { refundItems } from '../refund-items.js'
import type { Algorithm, Awaitable, ConsumeItem, Decision, Store } from '../types.js'
import { ceilMs, NEVER } from './decide.js'

const ignore = (): void => {}

/**
 * `leakyBucket({ mode: 'shape', maxDelay })`: a request that would wait longer than `maxDelay` is refused.
 *
 * The bound is decided here, above the store, from the decision's `delayMs`: a shaping bucket's `delayMs` is
 * `ceil(level / leakRate)`, the wait for the units ahead of the request, so the rule needs no state and no
 * script of its own, and every store (memory, Redis, PostgreSQL, yours) runs it unchanged. A request the
 * store admitted with too long a wait is given back (a bucket's refund is the exact inverse of its consume)
 * and refused with `retryAfterMs = delayMs - maxDelay`: once that much has drained, its wait is `maxDelay`.
 *
 * On the memory store the consume and the give-back happen in one tick, so nothing can see the unit in
 * between. On a remote store a concurrent request may see it for one round trip: it is then told to wait a
 * little longer, or refused, never admitted past the bound.
 */

/**
 * Apply `algorithm.maxDelayMs` to one decision, in place: an admitted request that would wait longer becomes
 * a refusal; `remaining` never promises more than the bound admits (unit requests); a refusal's
 * `retryAfterMs` points to when both the capacity and the bound admit it. Returns whether it turned an
 * admitted decision into a refusal (the caller gives back what the store spent).
 */
export function boundDelay(algorithm: Algorithm, d: Decision): boolean {
  const max = algorithm.maxDelayMs
  if (max === undefined) return false
  if (d.allowed && d.delayMs > max) {
    d.allowed = false
    d.retryAfterMs = ceilMs(d.delayMs - max)
    d.resetMs = d.delayMs // the bucket without this request drains in exactly its wait
    d.remaining = 0 // the bound is on the level before a request: no request of any cost passes now
    d.delayMs = 0
    return true
  }
  // resetMs is when the level (after this request, or before a peeked one) has drained; each further unit
  // request waits 1 / leak rate longer than the one before it.
  const { rate, intervalMs } = algorithm.params
  const room = d.resetMs <= max ? Math.floor(((max - d.resetMs) * rate!) / intervalMs! + 1e-9) + 1 : 0
  if (room < d.remaining) d.remaining = room
  if (!d.allowed && d.retryAfterMs !== NEVER && d.resetMs > max) {
    d.retryAfterMs = Math.max(d.retryAfterMs, ceilMs(d.resetMs - max))
  }
  return false
}

/** Whether any of `items` has a bounded delay: without one there is nothing to do. */
export function boundsDelay(items: readonly ConsumeItem[]): boolean {
  for (let i = 0; i < items.length; i++) if (items[i]!.algorithm.maxDelayMs !== undefined) return true
  return false
}

/**
 * Apply each item's bound to its decision (`decisions[i]` for `items[i]`). When the store admitted the
 * request and a bound refuses it, what every charged item spent is given back, so a refused request spends
 * nothing anywhere. A give-back that fails leaves the units to drain with the bucket (the refusal stands).
 * Synchronous when the store is.
 */
export function boundDelays(
  store: Pick<Store, 'refund'>,
  items: readonly ConsumeItem[],
  decisions: Decision[],
  now: number | undefined,
): Awaitable<Decision[]> {
  const admitted = decisions.every((d) => d.allowed)
  let refused = false
  for (let i = 0; i < items.length; i++) if (boundDelay(items[i]!.algorithm, decisions[i]!)) refused = true
  if (!admitted || !refused) return decisions
  // A give-back that fails changes nothing: the refusal stands, and the units drain with the bucket.
  const done = refundItems({ store, items, now, report: ignore })
  return done === undefined ? decisions : done.then(() => decisions)
}

/** {@link boundDelays} for one item. */
export function boundOne(
  store: Pick<Store, 'refund'>,
  item: ConsumeItem,
  decision: Awaitable<Decision>,
  now: number | undefined,
): Awaitable<Decision> {
  if (item.algorithm.maxDelayMs === undefined) return decision
  const bound = (d: Decision): Awaitable<Decision> => {
    const out = boundDelays(store, [item], [d], now)
    return out instanceof Promise ? out.then((ds) => ds[0]!) : out[0]!
  }
  return decision instanceof Promise ? decision.then(bound) : bound(decision)
}
