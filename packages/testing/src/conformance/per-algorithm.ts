import { RateLimitConfigError, type Store } from '@floodgate/core'
import { createRateLimitHandler } from '@floodgate/core/internal'
import { describe, expect, it } from 'vitest'
import { seededRandom } from '../random.js'
import { agreeOnRandomOperation, referenceModel } from '../reference-model.js'
import { type Suite, uniqueKey } from './suite.js'

/**
 * The tests of each algorithm the suite decides with, a `describe` block each: random sequences against the
 * reference, charges, refusals, retries, same-tick requests, reset and refund, odd keys.
 */
export function testAlgorithms(suite: Suite): void {
  const { cases, time, at, nextDay, compared } = suite
  for (const algorithmCase of cases) {
    describe(algorithmCase.name, () => {
      const algorithm = algorithmCase.create()

      if (time === 'given') {
        it('agrees with the reference on random sequences, decision for decision', async () => {
          const { store } = suite
          const sequences = suite.sequences ?? 12
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
          const { store } = suite
          if (!store.charge) return refusesSettle(store)
          const sequences = Math.max(1, Math.ceil((suite.sequences ?? 12) / 3))
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
          const { store } = suite
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
        const { store } = suite
        const key = uniqueKey('refused')
        const day = nextDay()
        const [now, later] = [at(day), at(day + 1)]
        let decision = await store.consume(algorithm, key, 1, now)
        while (decision.allowed) decision = await store.consume(algorithm, key, 1, now)
        const before = compared(await store.peek(algorithm, key, 1, later))
        for (let i = 0; i < 5; i++) expect((await store.consume(algorithm, key, 1, now)).allowed).toBe(false)
        expect(compared(await store.peek(algorithm, key, 1, later))).toEqual(before)
      })

      if (time === 'given') {
        it('a client that waits retryAfterMs passes', async () => {
          const { store } = suite
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
          const { store } = suite
          const key = uniqueKey('retry')
          let decision = await store.consume(algorithm, key, 1)
          while (decision.allowed) decision = await store.consume(algorithm, key, 1)
          expect(decision.retryAfterMs).toBeGreaterThan(0)
          expect(decision.retryAfterMs).toBeLessThanOrEqual(decision.resetMs)
        })
      }

      it('same-tick requests are counted exactly: of 2 x limit concurrent calls, limit pass', async () => {
        const { store } = suite
        const key = uniqueKey('concurrent')
        const now = at(nextDay())
        const calls = Array.from({ length: algorithm.limit * 2 }, () => store.consume(algorithm, key, 1, now))
        const decisions = await Promise.all(calls)
        expect(decisions.filter((d) => d.allowed)).toHaveLength(algorithm.limit)
      })

      it('reset gives a full quota; a refund never goes below empty', async () => {
        const { store } = suite
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
        const { store } = suite
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
}

/** A store without `charge` cannot settle costs: a limiter with `settle` refuses it when it is created. */
function refusesSettle(store: Store): void {
  expect(() => createRateLimitHandler({ store, settle: () => 1 })).toThrow(RateLimitConfigError)
}
