import {
  type Algorithm,
  type ConsumeItem,
  type Decision,
  RateLimitConfigError,
  type Store,
} from '@floodgate/core'
import {
  type AlgorithmKind,
  type BanRule,
  boundDelay,
  consumeAll,
  createRateLimitHandler,
} from '@floodgate/core/internal'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AlgorithmCase, algorithmCases, quotaAlgorithm } from './algorithms.js'
import { resetLimits } from './app-state.js'
import { seededRandom } from './random.js'
import { agreeOnRandomOperation, fields, referenceModel } from './reference-model.js'
import { checkOptions, EVERY_KIND, type StoreUnderTest } from './store-under-test.js'
import { vectors } from './vectors.js'
import { type VirtualClock, virtualClock } from './virtual-clock.js'
import { type VirtualTimers, virtualTimers } from './virtual-timers.js'

const DAY_MS = 86_400_000
/** The day the tests other than the worked examples start from: after every date the examples are about. */
const FIRST_DAY = Date.UTC(2030, 0, 1)

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
            // A store without `charge` cannot settle costs: a limiter with `settle` refuses it at creation.
            if (!store.charge && vector.steps.some((step) => step.op === 'charge')) {
              expect(() => createRateLimitHandler({ store, settle: () => 1 })).toThrow(RateLimitConfigError)
              return
            }
            const algorithm = vector.algorithm()
            const key = uniqueKey('vector')
            const leases: (string | undefined)[] = []
            for (const [index, step] of vector.steps.entries()) {
              for (let i = 0; i < (step.times ?? 1); i++) {
                const cost = step.cost ?? 1
                const op = step.op ?? 'consume'
                if (op === 'refund') await store.refund(algorithm, key, cost, step.at)
                else if (op === 'charge') await store.charge!(algorithm, key, cost, step.at)
                else if (op === 'reset') await store.reset(algorithm, key)
                else if (op === 'release') {
                  const lease = leases[step.lease ?? 0]
                  expect(lease, `step ${index}: the lease to release`).toBeTypeOf('string')
                  await store.release!(algorithm, key, lease!, step.at)
                } else {
                  const decision = vector.throughCore
                    ? await throughCore(store, op, { algorithm, key, cost }, step.at)
                    : op === 'peek'
                      ? await store.peek(algorithm, key, cost, step.at)
                      : await store.consume(algorithm, key, cost, step.at)
                  expect(
                    fields(decision),
                    `step ${index} (${op} at +${step.at % 86_400_000} ms)`,
                  ).toMatchObject(step.expect ?? {})
                  if (op === 'consume' && decision.allowed && algorithm.release) {
                    expect(decision.lease, `step ${index}: an allowed decision's lease`).toBeTypeOf('string')
                    leases.push(decision.lease)
                  }
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

        // An algorithm without `charge` never settles (a policy of it with `settle` is refused at creation).
        if (time === 'given' && algorithm.charge !== undefined) {
          it('charges (settled costs) agree with the reference on random sequences', async () => {
            if (!store.charge) return refusesSettle(store)
            const sequences = Math.max(1, Math.ceil((options.sequences ?? 12) / 3))
            for (let seed = 1; seed <= sequences; seed++) {
              const random = seededRandom(seed * 104_729)
              const reference = referenceModel(algorithm)
              const keys = [uniqueKey('charge-a'), uniqueKey('charge-b')]
              let now = nextDay() + Math.floor(random() * 10_000)
              for (let op = 0; op < 60; op++) {
                now += random() < 0.4 ? 0 : Math.floor(random() * 600)
                const where = `seed ${seed}, op ${op}, t=${now}`
                if (random() < 0.2) {
                  const key = keys[random() < 0.75 ? 0 : 1]!
                  const cost = random() < 0.5 ? 1 : random() < 0.6 ? 3 : 0.5
                  await store.charge!(algorithm, key, cost, now)
                  reference.charge(key, cost, now)
                } else {
                  await agreeOnRandomOperation({ store, reference, algorithm, keys, random, now, where })
                }
              }
            }
          })
        }

        if (algorithm.charge !== undefined)
          it('a charge takes a key over its limit: its next request is refused, a refund brings it back', async () => {
            if (!store.charge) return refusesSettle(store)
            const key = uniqueKey('charge')
            const now = at(nextDay())
            expect((await store.consume(algorithm, key, 1, now)).allowed).toBe(true)
            await store.charge!(algorithm, key, algorithm.limit + 2, now)
            const refused = await store.consume(algorithm, key, 1, now)
            expect(compared(refused)).toMatchObject({ allowed: false, remaining: 0 })
            expect(refused.retryAfterMs).toBeGreaterThan(0)
            expect(refused.retryAfterMs).toBeLessThan(Number.POSITIVE_INFINITY)
            await store.refund(algorithm, key, algorithm.limit + 3, now)
            expect((await store.consume(algorithm, key, 1, now)).allowed).toBe(true)
          })

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
          const taken = await store.consume(algorithm, key, 1, now)
          await store.refund(algorithm, key, 5, now)
          // Units with a lease go back by their lease only (a refund gives none back), and only once.
          if (taken.lease !== undefined) {
            expect((await store.peek(algorithm, key, 1, now)).remaining).toBe(algorithm.limit - 1)
            await store.release!(algorithm, key, taken.lease, now)
            await store.release!(algorithm, key, taken.lease, now)
          }
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

    // Bans (a store with `unban`): checked and counted in the same call as the decision, through consumeAll.
    describe('bans (a store with unban)', () => {
      const HOUR = 3_600_000
      /** The store's first kind with a quota of 2 that gives nothing back within a test. */
      const quota = () => quotaAlgorithm(kinds[0]!, 2)
      const banOf = (after: number, withinMs = HOUR, forMs = HOUR): BanRule => ({ after, withinMs, forMs })
      const all = (items: ConsumeItem[], now: number | undefined) => store.consumeAll!(items, now)
      const one = async (item: ConsumeItem, now: number | undefined) => (await all([item], now))[0]!
      /** A key whose quota is spent, at `now`. */
      const spent = async (item: ConsumeItem, now: number | undefined) => {
        for (let i = 0; i < item.algorithm.limit; i++) await store.consume(item.algorithm, item.key, 1, now)
      }
      const banned = (d: Decision) => (d.bannedMs ?? 0) > 0

      it('the after-th refusal within `within` bans the key: a refusal with bannedMs, bannedNow on the first', async () => {
        if (!store.unban) return
        expect(store.consumeAll, 'a store that keeps bans decides them in consumeAll').toBeTypeOf('function')
        const t = nextDay()
        const item: ConsumeItem = {
          algorithm: quota(),
          key: uniqueKey('ban'),
          cost: 1,
          ban: banOf(3, 10_000, 60_000),
        }
        expect(await one(item, at(t))).toMatchObject({ allowed: true })
        expect(await one(item, at(t))).toMatchObject({ allowed: true })
        const first = await one(item, at(t + 1))
        expect(first.allowed).toBe(false)
        expect(banned(first)).toBe(false)
        expect(banned(await one(item, at(t + 2)))).toBe(false)
        const third = await one(item, at(t + 3))
        expect(banned(third)).toBe(true)
        expect(third.bannedNow).toBe(true)
        expect(third).toMatchObject({ allowed: false, remaining: 0, limit: item.algorithm.limit })
        if (time === 'given') {
          expect(third).toMatchObject({ bannedMs: 60_000, retryAfterMs: 60_000, resetMs: 60_000 })
          const later = await one(item, at(t + 1003))
          expect(later).toMatchObject({
            allowed: false,
            bannedMs: 59_000,
            retryAfterMs: 59_000,
            remaining: 0,
          })
          expect(later.bannedNow ?? false).toBe(false)
          // Over: refused by its quota alone, which counts again from one.
          const after = await one(item, at(t + 3 + 60_000))
          expect(after.allowed).toBe(false)
          expect(banned(after)).toBe(false)
        } else {
          const later = await one(item, undefined)
          expect(banned(later)).toBe(true)
          expect(later.bannedNow ?? false).toBe(false)
        }
      })

      if (time === 'given') {
        it('refusals further apart than `within` start the count again', async () => {
          if (!store.unban) return
          const t = nextDay()
          const item: ConsumeItem = {
            algorithm: quota(),
            key: uniqueKey('ban-within'),
            cost: 1,
            ban: banOf(2, 1000, 5000),
          }
          await spent(item, t)
          expect(banned(await one(item, t + 1))).toBe(false)
          expect(banned(await one(item, t + 1001))).toBe(false) // the window ran: this one is the first again
          const second = await one(item, t + 1500)
          expect(second).toMatchObject({ allowed: false, bannedMs: 5000, bannedNow: true })
          expect(await one(item, t + 6499)).toMatchObject({ bannedMs: 1 })
          expect(banned(await one(item, t + 6500))).toBe(false)
        })
      }

      it('a banned request consumes nothing and counts nothing; the other items are peeked', async () => {
        if (!store.unban) return
        const t = nextDay()
        const a: ConsumeItem = { algorithm: quota(), key: uniqueKey('ban-a'), cost: 1, ban: banOf(1) }
        const b: ConsumeItem = { algorithm: quota(), key: uniqueKey('ban-b'), cost: 1 }
        await spent(a, at(t))
        expect(banned(await one(a, at(t + 1)))).toBe(true)
        const both = await all([a, b], at(t + 2))
        expect(banned(both[0]!)).toBe(true)
        expect(both[0]!.bannedNow ?? false).toBe(false)
        expect(both[1]).toMatchObject({ allowed: true, remaining: b.algorithm.limit })
        expect(banned(both[1]!)).toBe(false)
        expect((await store.peek(b.algorithm, b.key, 1, at(t + 2))).remaining).toBe(b.algorithm.limit)
      })

      it('a refusal by another policy counts nothing toward an allowing item’s ban', async () => {
        if (!store.unban) return
        const t = nextDay()
        const a: ConsumeItem = { algorithm: quota(), key: uniqueKey('ban-c'), cost: 1, ban: banOf(1) }
        const b: ConsumeItem = { algorithm: quota(), key: uniqueKey('ban-d'), cost: 1, ban: banOf(1) }
        await spent(b, at(t))
        const decided = await all([a, b], at(t + 1))
        expect(decided[0]).toMatchObject({ allowed: true })
        expect(banned(decided[0]!)).toBe(false)
        expect(decided[1]).toMatchObject({ allowed: false, bannedNow: true })
        expect(await one(a, at(t + 2))).toMatchObject({ allowed: true, remaining: a.algorithm.limit - 1 })
      })

      it('unban lifts the ban and forgets the refusals counted; reset leaves a ban', async () => {
        if (!store.unban) return
        const t = nextDay()
        const item: ConsumeItem = { algorithm: quota(), key: uniqueKey('unban'), cost: 1, ban: banOf(2) }
        await spent(item, at(t))
        await one(item, at(t + 1))
        expect(banned(await one(item, at(t + 2)))).toBe(true)
        await store.reset(item.algorithm, item.key)
        expect(banned(await one(item, at(t + 3)))).toBe(true)
        await store.unban(item.key)
        // The quota was reset and the banned request spent nothing: a full quota, then refusals from one again.
        expect(await one(item, at(t + 4))).toMatchObject({ allowed: true })
        expect(await one(item, at(t + 4))).toMatchObject({ allowed: true })
        const lifted = await one(item, at(t + 4))
        expect(lifted.allowed).toBe(false)
        expect(banned(lifted), 'the refusals before the ban are forgotten').toBe(false)
        expect(await one(item, at(t + 5))).toMatchObject({ bannedNow: true })
        await store.unban(uniqueKey('never-banned'))
      })

      it('same-tick refusals are counted exactly: of 6 concurrent refusals with after 3, one bans and two are banned', async () => {
        if (!store.unban) return
        const t = nextDay()
        const item: ConsumeItem = { algorithm: quota(), key: uniqueKey('ban-tick'), cost: 1, ban: banOf(3) }
        await spent(item, at(t))
        const decided = await Promise.all(Array.from({ length: 6 }, () => one(item, at(t + 1))))
        expect(decided.every((d) => !d.allowed)).toBe(true)
        expect(decided.filter((d) => d.bannedNow === true)).toHaveLength(1)
        expect(decided.filter(banned)).toHaveLength(4)
      })
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
  if (store.charge) {
    timed.charge = (algorithm, key, cost, now) => {
      at(now)
      return store.charge!(algorithm, key, cost, now)
    }
  }
  if (store.consumeAll) {
    timed.consumeAll = (items, now) => {
      at(now)
      return store.consumeAll!(items, now)
    }
  }
  if (store.release) {
    timed.release = (algorithm, key, lease, now) => {
      at(now)
      return store.release!(algorithm, key, lease, now)
    }
  }
  if (store.clear) timed.clear = () => store.clear!()
  if (store.unban) timed.unban = (key) => store.unban!(key)
  if (store.checkAlgorithm) timed.checkAlgorithm = (algorithm) => store.checkAlgorithm!(algorithm)
  return timed
}

/** A store without `charge` cannot settle costs: a limiter with `settle` refuses it when it is created. */
function refusesSettle(store: Store): void {
  expect(() => createRateLimitHandler({ store, settle: () => 1 })).toThrow(RateLimitConfigError)
}
