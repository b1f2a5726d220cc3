import { RateLimitConfigError } from './errors.js'
import type { Algorithm, ConsumeItem, Store } from './types.js'

/** An item a request spent, to give back: with the lease of its units when its policy holds leases. */
export interface SpentItem extends ConsumeItem {
  /** The allowed decision's `lease` (`concurrency`): given back by `release`, never by `refund`. */
  readonly lease?: string
}

/**
 * Give back what `items` spent (those of no cost spent nothing), at `now`: an item with a lease is released
 * (on `store`, and on `fallback` when the limiter has one: a lease is unique, so the store that did not take it
 * frees nothing), any other refunded. A refund that throws or rejects goes to `report`, never further.
 * Undefined when every refund was synchronous; otherwise a promise that settles, never rejects, once every
 * refund has.
 */
export function refundItems(parts: {
  store: Pick<Store, 'refund' | 'release'>
  items: readonly SpentItem[]
  now: number | undefined
  report: (error: unknown) => void
  fallback?: Pick<Store, 'release'> | undefined
  /** Release the leased items only, and refund nothing else (a response that ended and counts). */
  leasesOnly?: boolean
}): Promise<void> | undefined {
  const { store, items, now, report, fallback, leasesOnly } = parts
  const pending: Promise<unknown>[] = []
  const settle = (done: unknown) => {
    if (done instanceof Promise) pending.push(done.catch(report))
  }
  for (const item of items) {
    if (item.cost <= 0) continue
    try {
      if (item.lease !== undefined) {
        settle(store.release?.(item.algorithm, item.key, item.lease, now))
        if (fallback !== undefined) settle(fallback.release?.(item.algorithm, item.key, item.lease, now))
      } else if (!leasesOnly) settle(store.refund(item.algorithm, item.key, item.cost, now))
    } catch (error) {
      report(error)
    }
  }
  return pending.length === 0 ? undefined : Promise.all(pending).then(() => undefined)
}

/**
 * Throw a `RateLimitConfigError` when `algorithm` holds leases (`concurrency`) and `store` cannot give them
 * back (it has no `release`): such a policy fails at creation, never on a request.
 */
export function checkRelease(store: Store, algorithm: Algorithm, option: string): void {
  if (algorithm.kind !== 'concurrency' || typeof store.release === 'function') return
  throw new RateLimitConfigError(
    'ERR_FLOODGATE_INVALID_OPTION',
    option,
    store,
    'a store that gives leases back (one with `release`: MemoryStore, RedisStore, PostgresStore) for a concurrency policy',
  )
}
