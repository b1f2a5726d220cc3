import type { Store } from '@floodgate/core'
import { afterAll, beforeAll, describe } from 'vitest'
import { checkOptions, EVERY_KIND, type StoreUnderTest } from '../store-under-test.js'
import { virtualClock } from '../virtual-clock.js'
import { virtualTimers } from '../virtual-timers.js'
import { testBans } from './bans.js'
import { testClear } from './clear.js'
import { testConsumeAll } from './consume-all.js'
import { onTime } from './on-time.js'
import { testAlgorithms } from './per-algorithm.js'
import { testRefusedKinds } from './refused-kinds.js'
import { casesFor, type Suite, stable } from './suite.js'
import { testWorkedExamples } from './worked-examples.js'

const DAY_MS = 86_400_000
/** The day the tests other than the worked examples start from: after every date the examples are about. */
const FIRST_DAY = Date.UTC(2030, 0, 1)

/**
 * Register the store conformance suite with vitest: what every store must do, with the same worked examples
 * and the same random sequences, decision for decision, as the algorithms' TypeScript reference. Call it at
 * the top level of a test file (it registers a `describe` block); run the file with vitest.
 *
 * @example
 * import { MemoryStore } from '@floodgate/core'
 * import { testStore } from '@floodgate/testing'
 *
 * testStore({ name: 'MemoryStore', create: () => new MemoryStore() })
 */
export function testStore<S extends Store>(options: StoreUnderTest<S>): void {
  checkOptions(options)
  const time = options.time ?? 'given'
  const kinds = options.algorithms ?? EVERY_KIND
  const cases = casesFor(kinds, time)
  const compared = stable(time)
  /** The time a test decides at: a fixed instant on a given clock, none (the store's own) otherwise. */
  const at = (ms: number): number | undefined => (time === 'given' ? ms : undefined)

  describe(`store conformance: ${options.name}`, () => {
    // Each test, and each random sequence, decides on a day of its own, later than the last: time runs forward
    // from one to the next, as a clock does, and no two of them share a window (the worked examples keep the
    // dates they are about, before these).
    let days = 0
    const nextDay = () => FIRST_DAY + days++ * DAY_MS
    const clock = virtualClock(Date.UTC(2026, 0, 1))
    const timers = virtualTimers(clock)
    let created: S | undefined
    /** The store under test, the suite's time moved to each call's before the call. */
    let store: Store
    beforeAll(async () => {
      created = await options.create({ clock, timers })
      store = onTime(created, clock, timers)
    })
    afterAll(async () => {
      if (!created) return
      if (options.destroy) await options.destroy(created)
      else await created.close()
    })

    const suite: Suite = {
      get store() {
        return store
      },
      kinds,
      time,
      cases,
      sequences: options.sequences,
      compared,
      at,
      nextDay,
    }

    testRefusedKinds(suite)
    testWorkedExamples(suite)
    testAlgorithms(suite)
    testConsumeAll(suite)
    testBans(suite)
    testClear(suite)
  })
}
