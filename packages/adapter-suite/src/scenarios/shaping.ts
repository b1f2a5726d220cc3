import { leakyBucket } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import type { SuiteContext } from '../harness.js'

/** The scenarios of `shaping`, for one adapter on one store. */
export function shaping({ app, get, statuses }: SuiteContext): void {
  describe('shaping', () => {
    it('a shaping leaky bucket delays requests by delayMs, then refuses past capacity', async () => {
      const sleeps: number[] = []
      const a = await app({
        options: {
          algorithm: leakyBucket({ capacity: 3, leakRate: 1, interval: '1s', mode: 'shape' }),
          sleep: async (ms: number) => {
            sleeps.push(ms)
          },
        },
      })
      expect(await statuses(a, 3)).toEqual([200, 200, 200])
      expect(sleeps).toEqual([1000, 2000])
      const refused = await get(a)
      expect(refused.status).toBe(429)
      expect(refused.headers['retry-after']).toBe('1')
      expect(sleeps).toEqual([1000, 2000])
    })
  })
}
