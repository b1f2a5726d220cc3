import type { ConsumeItem, Store } from './types.js'

/**
 * Give back what `items` spent (those of no cost spent nothing), at `now`. A refund that throws or rejects goes
 * to `report`, never further. Undefined when every refund was synchronous; otherwise a promise that settles,
 * never rejects, once every refund has.
 */
export function refundItems(parts: {
  store: Pick<Store, 'refund'>
  items: readonly ConsumeItem[]
  now: number | undefined
  report: (error: unknown) => void
}): Promise<void> | undefined {
  const { store, items, now, report } = parts
  const pending: Promise<unknown>[] = []
  for (const item of items) {
    if (item.cost <= 0) continue
    try {
      const done = store.refund(item.algorithm, item.key, item.cost, now)
      if (done instanceof Promise) pending.push(done.catch(report))
    } catch (error) {
      report(error)
    }
  }
  return pending.length === 0 ? undefined : Promise.all(pending).then(() => undefined)
}
