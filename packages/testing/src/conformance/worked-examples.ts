import { type ConsumeItem, RateLimitConfigError, type Store } from '@floodgate/core'
import { boundDelay, consumeAll, createRateLimitHandler } from '@floodgate/core/internal'
import { describe, expect, it } from 'vitest'
import { fields } from '../reference-model.js'
import { vectors } from '../vectors.js'
import { type Suite, uniqueKey } from './suite.js'

/** A decision as the limiter makes it over `store`: consumed through core's consumeAll, or peeked and bounded. */
async function throughCore(store: Store, op: 'peek' | 'consume', item: ConsumeItem, now: number) {
  if (op === 'consume') return (await consumeAll(store, [item], now))[0]!
  const decision = await store.peek(item.algorithm, item.key, item.cost, now)
  boundDelay(item.algorithm, decision)
  return decision
}

/** The worked examples (on a given clock): each vector's steps, decision for decision. */
export function testWorkedExamples(suite: Suite): void {
  const { kinds, time } = suite
  if (time === 'given') {
    describe('worked examples', () => {
      for (const vector of vectors.filter((v) => kinds.includes(v.algorithm().kind))) {
        it(vector.name, async () => {
          const { store } = suite
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
}
