import type { FireOrder, FireReport } from './fire-child.js'
import type { Fleet } from './fork-fixture.js'

/**
 * Arm every child of `fleet` with its order (`orderOf(i)` for the i-th), then fire them all at once; resolves
 * with the admissions and the decisions not taken by the store's backend, summed over the children.
 *
 * @example const { admitted } = await fireAtOnce(fleet, () => ({ kind: 'gcra', key: 'k', requests: 250 }))
 */
export async function fireAtOnce<O extends FireOrder>(
  fleet: Fleet,
  orderOf: (i: number) => O,
): Promise<FireReport> {
  const ready = fleet.replies(fleet.children)
  fleet.children.forEach((child, i) => {
    child.send({ type: 'order', order: orderOf(i) })
  })
  await ready
  const reports = await fleet.ask<FireReport>({ type: 'fire' })
  return {
    admitted: reports.reduce((sum, r) => sum + r.admitted, 0),
    notFromStore: reports.reduce((sum, r) => sum + r.notFromStore, 0),
  }
}
