import { RateLimitConfigError } from '@floodgate/core'
import { expect, it } from 'vitest'
import { quotaAlgorithm } from '../algorithms.js'
import { EVERY_KIND } from '../store-under-test.js'
import type { Suite } from './suite.js'

/** A store that runs some kinds only refuses the others when a limiter is created, never on a request. */
export function testRefusedKinds(suite: Suite): void {
  const { kinds } = suite
  const refused = EVERY_KIND.filter((kind) => !kinds.includes(kind))
  if (refused.length > 0) {
    it(`refuses the kinds it does not run (${refused.join(', ')}) at creation, with a RateLimitConfigError`, () => {
      const { store } = suite
      expect(store.checkAlgorithm, 'a store that runs some kinds only has checkAlgorithm').toBeTypeOf(
        'function',
      )
      for (const kind of refused) {
        expect(() => store.checkAlgorithm!(quotaAlgorithm(kind, 5)), kind).toThrow(RateLimitConfigError)
      }
      for (const kind of kinds) store.checkAlgorithm!(quotaAlgorithm(kind, 5))
    })
  }
}
