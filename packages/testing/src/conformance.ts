import {
  type Algorithm,
  type AlgorithmKind,
  type ConsumeItem,
  consumeAll,
  type Decision,
  RateLimitConfigError,
  type Store,
} from '@floodgate/core'
import { boundDelay } from '@floodgate/core/internal'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AlgorithmCase, algorithmCases, quotaAlgorithm } from './algorithms.js'
import { resetLimits } from './app-state.js'
import { seededRandom } from './random.js'
import { agreeOnRandomOperation, fields, referenceModel } from './reference-model.js'
import { vectors } from './vectors.js'
import { type VirtualClock, virtualClock } from './virtual-clock.js'
import { type VirtualTimers, virtualTimers } from './virtual-timers.js'

/** Every algorithm kind core has, in the order the suite goes through them. */
const EVERY_KIND: readonly AlgorithmKind[] = [
  'fixed-window',
  'sliding-window-counter',
  'sliding-window-log',
  'token-bucket',
  'leaky-bucket',
  'gcra',
  'calendar-quota',
]

/** The suite's time, for a store that keeps time of its own beside the `now` each call passes. */
export interface SuiteTime {
  /** At the time of the latest call (pass `clock.now` as the store's clock). */
  readonly clock: VirtualClock
  /** Timers on that clock, fired as the suite moves it forward. */
  readonly timers: VirtualTimers
}

const DAY_MS = 86_400_000
/** The day the tests other than the worked examples start from: after every date the examples are about. */
const FIRST_DAY = Date.UTC(2030, 0, 1)

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
   * @default every kind: ['fixed-window', 'sliding-window-counter', 'sliding-window-log', 'token-bucket', 'leaky-bucket', 'gcra', 'calendar-quota']
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

/** A decision as the limiter makes it over `store`: consumed through core's consumeAll, or peeked and bounded. */
async function throughCore(store: Store, op: 'peek' | 'consume', item: ConsumeItem, now: number) {
  if (op === 'consume') return (await consumeAll(store, [item], now))[0]!
  const decision = await store.peek(item.algorithm, item.key, item.cost, now)
  boundDelay(item.algorithm, decision)
  return decision
}

let runs = 0
/** Keys unique to this run, so that a shared Redis never mixes runs. */
const uniqueKey = (name: string) => `conformance:${process.pid}:${Date.now().toString(36)}:${runs++}:${name}`

/**
 * The algorithms each test decides with: on a given clock, small limits and odd rates (see `algorithmCases`);
 * on the store's own, a limit of 5 that gives nothing back within a test's time (see `quotaAlgorithm`).
 */
function casesFor(kinds: readonly AlgorithmKind[], time: 'given' | 'own'): AlgorithmCase[] {
  if (time === 'own') return kinds.map((kind) => ({ name: kind, create: () => quotaAlgorithm(kind, 5) }))
  return algorithmCases.filter((c) => kinds.includes(c.create().kind))
}

/** The fields a test compares: every field on a given clock, what the passing of time leaves alone on the store's own. */
const stable = (time: 'given' | 'own') =>
  time === 'given'
    ? fields
    : (d: Decision) => ({ allowed: d.allowed, limit: d.limit, remaining: d.remaining })

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

    const refused = EVERY_KIND.filter((kind) => !kinds.includes(kind))
    if (refused.length > 0) {
      it(`refuses the kinds it does not run (${refused.join(', ')}) at creation, with a RateLimitConfigError`, () => {
        expect(store.checkAlgorithm, 'a store that runs some kinds only has checkAlgorithm').toBeTypeOf(
          'function',
        )
        for (const kind of refused) {
          expect(() => store.checkAlgorithm!(quotaAlgorithm(kind, 5)), kind).toThrow(RateLimitConfigError)
        }
        for (const kind of kinds) store.checkAlgorithm!(quotaAlgorithm(kind, 5))
      })
    }

    if (time === 'given') {
      describe('worked examples', () => {
        for (const vector of vectors.filter((v) => kinds.includes(v.algorithm().kind))) {
          it(vector.name, async () => {
            const algorithm = vector.algorithm()
            const key = uniqueKey('vector')
            for (const [index, step] of vector.steps.entries()) {
              for (let i = 0; i < (step.times ?? 1); i++) {
                const cost = step.cost ?? 1
                const op = step.op ?? 'consume'
                if (op === 'refund') await store.refund(algorithm, key, cost, step.at)
                else if (op === 'reset') await store.reset(algorithm, key)
                else {
                  const decision = vector.throughCore
                    ? await throughCore(store, op, { algorithm, key, cost }, step.at)
                    : op === 'peek'
                      ? await store.peek(algorithm, key, cost, step.at)
                      : await store.consume(algorithm, key, cost, step.at)
                  expect(
                    fields(decision),
                    `step ${index} (${op} at +${step.at % 86_400_000} ms)`,
                  ).toMatchObject(step.expect ?? {})
                }
              }
            }
          })
        }
      })
    }

    for (const algorithmCase of cases) {
      describe(algorithmCase.name, () => {
        const algorithm = algorithmCase.create()

        if (time === 'given') {
          it('agrees with the reference on random sequences, decision for decision', async () => {
            const sequences = options.sequences ?? 12
            for (let seed = 1; seed <= sequences; seed++) {
              const random = seededRandom(seed * 7919)
              const reference = referenceModel(algorithm)
              const keys = [uniqueKey('a'), uniqueKey('b')]
              let now = nextDay() + Math.floor(random() * 10_000)
              for (let op = 0; op < 60; op++) {
                const roll = random()
                if (roll < 0.45) now += 0
                else if (roll < 0.9) now += Math.floor(random() * 400)
                else if (roll < 0.97) now += Math.floor(random() * 2500)
                else now += 0.25 + Math.floor(random() * 100) // fractional ms, as a Redis server clock gives
                const where = `seed ${seed}, op ${op}, t=${now}`
                await agreeOnRandomOperation({ store, reference, algorithm, keys, random, now, where })
              }
            }
          })
        }

        it('a refused request changes nothing', async () => {
          const key = uniqueKey('refused')
          const day = nextDay()
          const [now, later] = [at(day), at(day + 1)]
          let decision = await store.consume(algorithm, key, 1, now)
          while (decision.allowed) decision = await store.consume(algorithm, key, 1, now)
          const before = compared(await store.peek(algorithm, key, 1, later))
          for (let i = 0; i < 5; i++)
            expect((await store.consume(algorithm, key, 1, now)).allowed).toBe(false)
          expect(compared(await store.peek(algorithm, key, 1, later))).toEqual(before)
        })

        if (time === 'given') {
          it('a client that waits retryAfterMs passes', async () => {
            const key = uniqueKey('retry')
            let now = nextDay() + 123
            let decision = await store.consume(algorithm, key, 1, now)
            while (decision.allowed) decision = await store.consume(algorithm, key, 1, now)
            expect(decision.retryAfterMs).toBeGreaterThan(0)
            now += decision.retryAfterMs
            expect((await store.consume(algorithm, key, 1, now)).allowed).toBe(true)
          })
        } else {
          it('a refusal says when to retry: retryAfterMs > 0, and no more than resetMs', async () => {
            const key = uniqueKey('retry')
            let decision = await store.consume(algorithm, key, 1)
            while (decision.allowed) decision = await store.consume(algorithm, key, 1)
            expect(decision.retryAfterMs).toBeGreaterThan(0)
            expect(decision.retryAfterMs).toBeLessThanOrEqual(decision.resetMs)
          })
        }

        it('same-tick requests are counted exactly: of 2 x limit concurrent calls, limit pass', async () => {
          const key = uniqueKey('concurrent')
          const now = at(nextDay())
          const calls = Array.from({ length: algorithm.limit * 2 }, () =>
            store.consume(algorithm, key, 1, now),
          )
          const decisions = await Promise.all(calls)
          expect(decisions.filter((d) => d.allowed)).toHaveLength(algorithm.limit)
        })

        it('reset gives a full quota; a refund never goes below empty', async () => {
          const key = uniqueKey('reset')
          const now = at(nextDay())
          await store.refund(algorithm, key, 3, now) // nothing to refund: must not create credit
          expect((await store.peek(algorithm, key, 1, now)).remaining).toBe(algorithm.limit)
          await store.consume(algorithm, key, 1, now)
          await store.refund(algorithm, key, 5, now)
          expect((await store.peek(algorithm, key, 1, now)).remaining).toBe(algorithm.limit)
          await store.consume(algorithm, key, 2, now)
          await store.reset(algorithm, key)
          expect((await store.peek(algorithm, key, 1, now)).remaining).toBe(algorithm.limit)
        })

        it('keeps keys apart, whatever they contain', async () => {
          const base = uniqueKey('keys')
          const odd = [
            `${base}{a}`,
            `${base}{a}}`,
            `${base}}{`,
            `${base}:x`,
            `${base}ключ`,
            `${base}${'x'.repeat(5000)}`,
          ]
          const now = at(nextDay())
          for (const key of odd) {
            for (let i = 0; i < algorithm.limit; i++) await store.consume(algorithm, key, 1, now)
            expect((await store.consume(algorithm, key, 1, now)).allowed).toBe(false)
          }
          expect((await store.peek(algorithm, `${base}{b}`, 1, now)).remaining).toBe(algorithm.limit)
          expect((await store.peek(algorithm, `${base}${'x'.repeat(5001)}`, 1, now)).remaining).toBe(
            algorithm.limit,
          )
        })
      })
    }

    // Through core's consumeAll: the store's own atomic consumeAll when it has one, else consume + refund.
    it('consumeAll: when one policy refuses, none is spent', async () => {
      const [a, b] = pairOf(cases)
      const [keyA, keyB] = [uniqueKey('all-a'), uniqueKey('all-b')]
      const now = at(nextDay())
      for (let i = 0; i < b.limit; i++) await store.consume(b, keyB, 1, now)
      const decisions = await consumeAll(
        store,
        [
          { algorithm: a, key: keyA, cost: 1 },
          { algorithm: b, key: keyB, cost: 1 },
        ],
        now,
      )
      expect(decisions.map((d) => d.allowed)).toEqual([true, false])
      expect((await store.peek(a, keyA, 1, now)).remaining).toBe(a.limit)
      const both = await consumeAll(
        store,
        [
          { algorithm: a, key: keyA, cost: 1 },
          { algorithm: b, key: uniqueKey('all-c'), cost: 1 },
        ],
        now,
      )
      expect(both.map((d) => d.allowed)).toEqual([true, true])
      expect((await store.peek(a, keyA, 1, now)).remaining).toBe(a.limit - 1)
    })

    it('clear() forgets every key, each starting again with a full quota; without it, resetLimits says so', async () => {
      if (!store.clear) {
        await expect(resetLimits(store)).rejects.toThrow(RateLimitConfigError)
        return
      }
      const [a, b] = pairOf(cases)
      const [keyA, keyB] = [uniqueKey('clear-a'), uniqueKey('clear-b')]
      const now = at(nextDay())
      await store.consume(a, keyA, 1, now)
      await store.consume(b, keyB, 2, now)
      await resetLimits(store)
      expect((await store.peek(a, keyA, 1, now)).remaining).toBe(a.limit)
      expect((await store.peek(b, keyB, 1, now)).remaining).toBe(b.limit)
      expect((await store.consume(a, keyA, 1, now)).allowed).toBe(true)
    })
  })
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
function checkOptions(options: unknown): void {
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

/**
 * Two algorithms of the store's kinds, for the tests of several policies at once: the first and the fourth
 * case (a fixed window and a token bucket, when the store runs every kind), else the first two, else one
 * twice.
 */
function pairOf(cases: readonly AlgorithmCase[]): [Algorithm, Algorithm] {
  const first = cases[0]!
  const second = cases[3] ?? cases[1] ?? first
  return [first.create(), second.create()]
}

/** `store`, with the suite's time moved to that of each call that passes one, before the call is made. */
function onTime(store: Store, clock: VirtualClock, timers: VirtualTimers): Store {
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
  if (store.consumeAll) {
    timed.consumeAll = (items, now) => {
      at(now)
      return store.consumeAll!(items, now)
    }
  }
  if (store.clear) timed.clear = () => store.clear!()
  if (store.checkAlgorithm) timed.checkAlgorithm = (algorithm) => store.checkAlgorithm!(algorithm)
  return timed
}
