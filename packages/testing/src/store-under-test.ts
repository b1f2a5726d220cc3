// What testStore takes: the store under test, the suite's time, and the check of those options at the call.
import { RateLimitConfigError, type Store } from '@floodgate/core'
import type { AlgorithmKind } from '@floodgate/core/internal'
import type { VirtualClock } from './virtual-clock.js'
import type { VirtualTimers } from './virtual-timers.js'

/** Every algorithm kind core has, in the order the suite goes through them. */
export const EVERY_KIND: readonly AlgorithmKind[] = [
  'fixed-window',
  'sliding-window-counter',
  'sliding-window-log',
  'token-bucket',
  'leaky-bucket',
  'gcra',
  'calendar-quota',
  'concurrency',
]

/** The suite's time, for a store that keeps time of its own beside the `now` each call passes. */
export interface SuiteTime {
  /** At the time of the latest call (pass `clock.now` as the store's clock). */
  readonly clock: VirtualClock
  /** Timers on that clock, fired as the suite moves it forward. */
  readonly timers: VirtualTimers
}

/** What {@link testStore} needs to know about the store under test. */
export interface StoreUnderTest<S extends Store = Store> {
  /**
   * The suite's name in the test report: `store conformance: <name>`.
   * @example 'MapStore'
   */
  name: string
  /**
   * Make the store under test. Called once, before the suite's first test; every test uses keys of its own,
   * so the store needs no clearing between them. With `time: 'given'`, the suite moves `time.clock` to the
   * time of each call before it makes the call, firing the `time.timers` that fall due on the way: give them
   * to a store that also reads a clock or sets timers of its own (a background sync, an expiry sweep), so
   * that its time agrees with the calls'. On `time: 'own'` they never move.
   * @example () => new MapStore()
   * @example ({ clock, timers }) => new SyncedStore({ store, clock: clock.now, timers: { setTimeout: timers.set, clearTimeout: timers.clear } })
   */
  create(time: SuiteTime): S | Promise<S>
  /**
   * Dispose of the store after the suite's last test: close it, and whatever it was given (a client, a pool,
   * a schema made for the run).
   * @default (store) => store.close()
   * @example async (store) => { await store.close(); await pool.end() }
   */
  destroy?(store: S): void | Promise<void>
  /**
   * The algorithm kinds the store runs. The suite decides with these only, and checks that the store's
   * `checkAlgorithm` refuses every other kind with a `RateLimitConfigError`, so that a limiter fails at
   * creation, never on a request.
   * @default every kind: ['fixed-window', 'sliding-window-counter', 'sliding-window-log', 'token-bucket', 'leaky-bucket', 'gcra', 'calendar-quota', 'concurrency'] (a store runs `concurrency` with a `release`)
   * @example ['fixed-window', 'sliding-window-counter']
   */
  algorithms?: readonly AlgorithmKind[]
  /**
   * Whose clock the store decides on. `'given'`: the `now` each call passes, as every Floodgate store does
   * when the limiter has a clock; the suite then replays worked examples and random sequences on a virtual
   * clock and compares every decision with the algorithm's reference. `'own'`: a clock of the store's own (a
   * database's, a server's), whatever it is passed; the suite then calls without `now`, on algorithms that
   * give nothing back within a test's time, and checks what holds at any moment: exact counting of
   * same-tick calls, refusals that change nothing, refunds, resets, keys kept apart, all or nothing.
   * @default 'given'
   * @example 'own'
   */
  time?: 'given' | 'own'
  /**
   * How many random sequences (60 operations each, on two keys) per algorithm are compared with the
   * reference, when `time` is `'given'`. A slow store may run fewer.
   * @default 12
   * @example 4
   */
  sequences?: number
}

/** What each option of {@link StoreUnderTest} takes, as an error message says it. */
const OPTION_RULES: Record<keyof StoreUnderTest, [(value: unknown) => boolean, string]> = {
  name: [(v) => typeof v === 'string' && v.length > 0, 'a non-empty string'],
  create: [(v) => typeof v === 'function', 'a function that returns the store'],
  destroy: [(v) => v === undefined || typeof v === 'function', 'a function of the store'],
  algorithms: [
    (v) =>
      v === undefined || (Array.isArray(v) && v.length > 0 && v.every((kind) => EVERY_KIND.includes(kind))),
    `a non-empty array of ${EVERY_KIND.map((kind) => `'${kind}'`).join(', ')}`,
  ],
  time: [(v) => v === undefined || v === 'given' || v === 'own', "'given' or 'own'"],
  sequences: [(v) => v === undefined || (Number.isInteger(v) && (v as number) >= 1), 'a whole number >= 1'],
}

/** Throw a `RateLimitConfigError` naming the first option of `testStore` that is not what it takes. */
export function checkOptions(options: unknown): void {
  if (typeof options !== 'object' || options === null) {
    throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', 'testStore', options, 'an object')
  }
  for (const [option, value] of Object.entries(options)) {
    if (!(option in OPTION_RULES)) {
      const known = Object.keys(OPTION_RULES).join(', ')
      throw new RateLimitConfigError(
        'ERR_FLOODGATE_UNKNOWN_OPTION',
        `testStore.${option}`,
        value,
        `one of the known options (${known})`,
      )
    }
  }
  for (const [option, [valid, expected]] of Object.entries(OPTION_RULES)) {
    const value = (options as Record<string, unknown>)[option]
    if (!valid(value)) {
      throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', `testStore.${option}`, value, expected)
    }
  }
}
