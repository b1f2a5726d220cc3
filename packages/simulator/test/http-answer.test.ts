// The answers the simulator shows are those core's HTTP handler sends: same status, same headers.
import {
  type Algorithm,
  gcra,
  leakyBucket,
  MemoryStore,
  slidingWindowCounter,
  tokenBucket,
} from '@floodgate/core'
import { createRateLimitHandler } from '@floodgate/core/internal'
import { type VirtualClock, virtualClock } from '@floodgate/testing'
import { describe, expect, it } from 'vitest'
import { answerer, createSession } from '../src/index.js'

/** Core's real HTTP handler over one global key, on a virtual clock: `send()` is one request to it. */
function realHandler(algorithm: Algorithm, clock: VirtualClock, cost = 1) {
  const handler = createRateLimitHandler({
    limits: [{ name: 'playground', key: 'global', algorithm, cost }],
    store: new MemoryStore({ clock: clock.now }),
    clock: clock.now,
    headers: 'draft-6',
  })
  const request = { ip: '192.0.2.1', method: 'GET', route: '/', path: '/', headers: {}, native: null }
  return { send: () => handler.handle(request) }
}

const cases = [
  tokenBucket({ capacity: 10, refillRate: 1, interval: '100ms' }),
  slidingWindowCounter({ limit: 5, window: '10s' }),
  leakyBucket({ capacity: 3, leakRate: 1, interval: '2500ms' }),
  gcra({ rate: 2, period: '3s', burst: 2 }),
]

describe.each(cases)('answers for $id', (algorithm) => {
  it('match the handler request for request: status, Retry-After and the draft-6 headers', async () => {
    const clock = virtualClock(1_700_000_000_000)
    const handler = realHandler(algorithm, clock)
    const session = createSession(algorithm)
    const gaps = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 40, 60, 99, 1, 700, 2300, 0, 0, 0, 5000, 0, 0, 0, 0, 0]
    for (const gap of gaps) {
      clock.advance(gap)
      const outcome = await handler.send()
      const { answer } = session.send(clock.now())
      expect(answer.status).toBe(outcome.kind === 'pass' ? 200 : outcome.status)
      for (const [name, value] of Object.entries(answer.headers))
        expect(outcome.headers[name], name).toBe(value)
      expect('retry-after' in answer.headers).toBe('retry-after' in outcome.headers)
    }
  })
})

describe('answerer', () => {
  it('answers 413 without Retry-After to a request that can never pass, as the handler does', async () => {
    const algorithm = tokenBucket({ capacity: 2, refillRate: 1 })
    const outcome = await realHandler(algorithm, virtualClock(0), 3).send()
    const { answer } = createSession(algorithm).send(0, 3)
    expect(answer.status).toBe(413)
    expect(outcome.status).toBe(413)
    expect(answer.headers['retry-after']).toBeUndefined()
    expect(outcome.headers['retry-after']).toBeUndefined()
  })

  it('rounds Retry-After up to whole seconds, at least 1', () => {
    const answer = answerer(tokenBucket({ capacity: 2, refillRate: 1 }))
    const refused = (retryAfterMs: number) =>
      answer({ allowed: false, limit: 2, remaining: 0, resetMs: 0, retryAfterMs, delayMs: 0, policy: '' }, 0)
        .headers['retry-after']
    expect([refused(1), refused(1000), refused(1001), refused(29_500)]).toEqual(['1', '1', '2', '30'])
  })
})
