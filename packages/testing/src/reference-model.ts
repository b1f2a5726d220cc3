import type { Algorithm, Decision, Store } from '@floodgate/core'
import { expect } from 'vitest'

/** The fields of a decision every store must agree on with the reference. */
export const fields = (d: Decision) => ({
  allowed: d.allowed,
  limit: d.limit,
  remaining: d.remaining,
  resetMs: d.resetMs,
  retryAfterMs: d.retryAfterMs,
  delayMs: d.delayMs,
})

/**
 * The reference: the algorithm's own pure functions over one plain buffer per key, what every store must decide.
 * Exported for stores that run their own sequences against it.
 */
export function referenceModel(algorithm: Algorithm) {
  const states = new Map<string, Float64Array>()
  const state = (key: string) => states.get(key) ?? new Float64Array(algorithm.stateSize)
  return {
    consume(key: string, cost: number, now: number) {
      const s = state(key)
      const decision = algorithm.consume(s, 0, now, cost)
      if (decision.allowed) states.set(key, s)
      return decision
    },
    peek: (key: string, cost: number, now: number) => algorithm.peek(state(key), 0, now, cost),
    refund(key: string, cost: number, now: number) {
      const s = states.get(key)
      if (s) algorithm.refund(s, 0, now, cost)
    },
    /** Spend `cost` whatever the limit says (the algorithm's `charge`). */
    charge(key: string, cost: number, now: number) {
      const s = state(key)
      algorithm.charge?.(s, 0, now, cost)
      states.set(key, s)
    },
    reset: (key: string) => states.delete(key),
    release(key: string, lease: string, now: number) {
      const s = states.get(key)
      if (s) algorithm.release?.(s, 0, now, lease)
    },
    /** The leases both sides gave for the same allowed consume (`concurrency`): the reference's and the store's. */
    held: [] as { key: string; reference: string; store: string }[],
  }
}

/** What {@link referenceModel} returns. */
export type ReferenceModel = ReturnType<typeof referenceModel>

/** One random operation, on a store under test and on the reference alike. */
export interface RandomOperation {
  store: Store
  reference: ReferenceModel
  algorithm: Algorithm
  /** The keys it picks from: the first 3 times in 4. */
  keys: readonly string[]
  random: () => number
  now: number
  /** Names the step in a failure's message (the cost is added). */
  where: string
}

/**
 * A consume (70%), a peek (15%), a refund (12%) or a reset (3%) of cost 1, 2 or 0.5 on one of `keys`, made on
 * the store and on the reference at `now`: a consume's or a peek's decisions must agree, field for field. For
 * an algorithm with leases (`concurrency`), the peek and the refund give way to a release of a lease taken
 * earlier (maybe released already, or expired).
 */
export async function agreeOnRandomOperation(o: RandomOperation): Promise<void> {
  const { store, reference, algorithm, keys, random, now } = o
  const key = keys[random() < 0.75 ? 0 : 1]!
  const cost = random() < 0.8 ? 1 : random() < 0.7 ? 2 : 0.5
  const kind = random()
  const where = `${o.where}, cost ${cost}`
  if (kind < 0.7) {
    const got = await store.consume(algorithm, key, cost, now)
    const expected = reference.consume(key, cost, now)
    expect(fields(got), `consume: ${where}`).toEqual(fields(expected))
    if (got.lease !== undefined && expected.lease !== undefined)
      reference.held.push({ key, reference: expected.lease, store: got.lease })
  } else if (kind < 0.97 && algorithm.release && reference.held.length > 0) {
    // A lease given back: its own units, once (a lease may come up again: released twice, or after expiry).
    const held = reference.held[Math.floor(random() * reference.held.length)]!
    await store.release!(algorithm, held.key, held.store, now)
    reference.release(held.key, held.reference, now)
  } else if (kind < 0.85) {
    const got = await store.peek(algorithm, key, cost, now)
    expect(fields(got), `peek: ${where}`).toEqual(fields(reference.peek(key, cost, now)))
  } else if (kind < 0.97) {
    await store.refund(algorithm, key, cost, now)
    reference.refund(key, cost, now)
  } else {
    await store.reset(algorithm, key)
    reference.reset(key)
  }
}
