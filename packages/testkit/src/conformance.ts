import { type ConsumeItem, consumeAll, type Store } from '@floodgate/core'
import { boundDelay } from '@floodgate/core/internal'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { algorithmCases } from './algorithms.js'
import { seededRandom } from './random.js'
import { agreeOnRandomOperation, fields, referenceModel } from './reference-model.js'
import { vectors } from './vectors.js'

/** How a conformance run gets (and gets rid of) the store under test. */
export interface StoreFactory {
  /** A store that decides with the `now` it is given (every call here passes one). */
  create(): Store | Promise<Store>
  /** Dispose of it; `store.close()` when omitted. */
  destroy?(store: Store): void | Promise<void>
  /** How many random sequences per algorithm (default 12); a slower store may run fewer. */
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
 * The store conformance suite: every store must pass it, with the same vectors and the same random
 * sequences, decision for decision, as the algorithms' TypeScript reference.
 *
 * @example describeStoreConformance('MemoryStore', { create: () => new MemoryStore() })
 */
export function describeStoreConformance(name: string, factory: StoreFactory): void {
  describe(`store conformance: ${name}`, () => {
    let store: Store
    beforeAll(async () => {
      store = await factory.create()
    })
    afterAll(async () => {
      if (!store) return
      if (factory.destroy) await factory.destroy(store)
      else await store.close()
    })

    describe('worked examples', () => {
      for (const vector of vectors) {
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

    for (const algorithmCase of algorithmCases) {
      describe(algorithmCase.name, () => {
        const algorithm = algorithmCase.create()

        it('agrees with the reference on random sequences, decision for decision', async () => {
          const sequences = factory.sequences ?? 12
          for (let seed = 1; seed <= sequences; seed++) {
            const random = seededRandom(seed * 7919)
            const reference = referenceModel(algorithm)
            const keys = [uniqueKey('a'), uniqueKey('b')]
            let now = Date.UTC(2026, 0, 1) + Math.floor(random() * 10_000)
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

        it('a refused request changes nothing', async () => {
          const key = uniqueKey('refused')
          const now = Date.UTC(2026, 0, 1)
          let decision = await store.consume(algorithm, key, 1, now)
          while (decision.allowed) decision = await store.consume(algorithm, key, 1, now)
          const before = fields(await store.peek(algorithm, key, 1, now + 1))
          for (let i = 0; i < 5; i++)
            expect((await store.consume(algorithm, key, 1, now)).allowed).toBe(false)
          expect(fields(await store.peek(algorithm, key, 1, now + 1))).toEqual(before)
        })

        it('a client that waits retryAfterMs passes', async () => {
          const key = uniqueKey('retry')
          let now = Date.UTC(2026, 0, 1) + 123
          let decision = await store.consume(algorithm, key, 1, now)
          while (decision.allowed) decision = await store.consume(algorithm, key, 1, now)
          expect(decision.retryAfterMs).toBeGreaterThan(0)
          now += decision.retryAfterMs
          expect((await store.consume(algorithm, key, 1, now)).allowed).toBe(true)
        })

        it('same-tick requests are counted exactly: of 2 x limit concurrent calls, limit pass', async () => {
          const key = uniqueKey('concurrent')
          const now = Date.UTC(2026, 0, 1)
          const calls = Array.from({ length: algorithm.limit * 2 }, () =>
            store.consume(algorithm, key, 1, now),
          )
          const decisions = await Promise.all(calls)
          expect(decisions.filter((d) => d.allowed)).toHaveLength(algorithm.limit)
        })

        it('reset gives a full quota; a refund never goes below empty', async () => {
          const key = uniqueKey('reset')
          const now = Date.UTC(2026, 0, 1)
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
          const now = Date.UTC(2026, 0, 1)
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
      const [a, b] = [algorithmCases[0]!.create(), algorithmCases[3]!.create()]
      const [keyA, keyB] = [uniqueKey('all-a'), uniqueKey('all-b')]
      const now = Date.UTC(2026, 0, 1)
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
  })
}
