// Regression: a refusal said `Retry-After: 26` with `RateLimit-Reset: 50` (the sliding window counter's "whole
// quota back"); the RateLimit draft (draft-ietf-httpapi-ratelimit-headers-12) says a Retry-After SHOULD NOT
// be earlier than the reset. On a refusal, the refused policy's reset is now its Retry-After, for every
// algorithm and every header mode.
import { MemoryStore } from '@floodgate/core'
import { everyAlgorithm } from '@floodgate/test-harness'
import { virtualClock } from '@floodgate/testing'
import { describe, expect, it } from 'vitest'
import { drivers, openApps, START } from '../../src/index.js'

const algorithms = everyAlgorithm(4, '10s')

/** The refused policy's reset in seconds from now, as each mode writes it. */
const resets: Record<string, (h: Record<string, string | undefined>, nowMs: number) => number> = {
  'draft-6': (h) => Number(h['ratelimit-reset']),
  'draft-7': (h) => Number(/reset=(\d+)/.exec(h.ratelimit ?? '')![1]),
  'draft-8': (h) => Number(/"ip";r=\d+;t=(\d+)/.exec(h.ratelimit ?? '')![1]),
  legacy: (h, now) => Number(h['x-ratelimit-reset']) - Math.floor(now / 1000),
}

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  describe.each(Object.keys(resets))('%s', (mode) => {
    it.each(algorithms.map((a) => [a.kind, a] as const))(
      '%s: the reset of a refusal is its Retry-After',
      async (_k, algorithm) => {
        const clock = virtualClock(START)
        const a = open(
          await driver.createApp({
            options: { algorithm, headers: mode, clock: clock.now, store: new MemoryStore() },
          }),
        )
        // Spread the quota over the first half of the window, then be refused at several moments.
        for (let i = 0; i < 4; i++) {
          clock.advance(7_000)
          expect((await a.request({ path: '/' })).status).toBe(200)
        }
        for (let i = 0; i < 3; i++) {
          clock.advance(1_300)
          const res = await a.request({ path: '/' })
          if (res.status === 200) continue // a bucket may have leaked a unit by now
          expect(res.status).toBe(429)
          const retryAfter = Number(res.headers['retry-after'])
          expect(retryAfter).toBeGreaterThanOrEqual(1)
          const reset = resets[mode]!(res.headers, clock.now())
          expect(reset, `reset ${reset} vs Retry-After ${retryAfter}`).toBeLessThanOrEqual(retryAfter)
          expect(reset).toBeGreaterThanOrEqual(retryAfter - 1)
        }
      },
    )
  })
})
