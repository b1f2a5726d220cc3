// What the parts of the store conformance suite share: the store under test, the suite's time, the algorithms
// the tests decide with, and keys no other run uses.
import type { Algorithm, Decision, Store } from '@floodgate/core'
import type { AlgorithmKind } from '@floodgate/core/internal'
import { type AlgorithmCase, algorithmCases, quotaAlgorithm } from '../algorithms.js'
import { fields } from '../reference-model.js'

/** What every part of the suite decides with; `testStore` makes it, and each part registers its tests with it. */
export interface Suite {
  /** The store under test, the suite's time moved to each call's before the call. Set before the first test. */
  readonly store: Store
  /** The algorithm kinds the store runs. */
  readonly kinds: readonly AlgorithmKind[]
  /** Whose clock the store decides on. */
  readonly time: 'given' | 'own'
  /** The algorithms the tests decide with (see {@link casesFor}). */
  readonly cases: readonly AlgorithmCase[]
  /** How many random sequences a test of random sequences runs (the store's `sequences`). */
  readonly sequences: number | undefined
  /** The fields a test compares (see {@link stable}). */
  readonly compared: ReturnType<typeof stable>
  /** The time a test decides at: a fixed instant on a given clock, none (the store's own) otherwise. */
  at(ms: number): number | undefined
  /** A day of the test's own, later than the last one given. */
  nextDay(): number
}

let runs = 0
/** Keys unique to this run, so that a shared Redis never mixes runs. */
export const uniqueKey = (name: string) =>
  `conformance:${process.pid}:${Date.now().toString(36)}:${runs++}:${name}`

/**
 * The algorithms each test decides with: on a given clock, small limits and odd rates (see `algorithmCases`);
 * on the store's own, a limit of 5 that gives nothing back within a test's time (see `quotaAlgorithm`).
 */
export function casesFor(kinds: readonly AlgorithmKind[], time: 'given' | 'own'): AlgorithmCase[] {
  if (time === 'own') return kinds.map((kind) => ({ name: kind, create: () => quotaAlgorithm(kind, 5) }))
  return algorithmCases.filter((c) => kinds.includes(c.create().kind))
}

/** The fields a test compares: every field on a given clock, what the passing of time leaves alone on the store's own. */
export const stable = (time: 'given' | 'own') =>
  time === 'given'
    ? fields
    : (d: Decision) => ({ allowed: d.allowed, limit: d.limit, remaining: d.remaining })

/**
 * Two algorithms of the store's kinds, for the tests of several policies at once: the first and the fourth
 * case (a fixed window and a token bucket, when the store runs every kind), else the first two, else one
 * twice.
 */
export function pairOf(cases: readonly AlgorithmCase[]): [Algorithm, Algorithm] {
  const first = cases[0]!
  const second = cases[3] ?? cases[1] ?? first
  return [first.create(), second.create()]
}
