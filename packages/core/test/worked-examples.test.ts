// The worked examples of the two documents our users learned rate limiting from, as written there.
import { describe, expect, it } from 'vitest'
import {
  type Algorithm,
  createLimiter,
  fixedWindow,
  leakyBucket,
  MemoryStore,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '../src/index.js'

function virtualLimiter(algorithm: Algorithm, start = 0) {
  const clock = { now: start }
  const limiter = createLimiter({ algorithm, store: new MemoryStore(), clock: () => clock.now })
  return { clock, limiter }
}

async function burst(limiter: ReturnType<typeof createLimiter>, n: number, key = 'user:123') {
  const decisions = []
  for (let i = 0; i < n; i++) decisions.push(await limiter.consume(key))
  return decisions
}

const at = (h: number, m: number, s: number) => ((h * 60 + m) * 60 + s) * 1000

describe('token bucket: capacity 10, refill 1 token / 100ms', () => {
  it('idle 1s, a burst of 10 passes, the 11th is refused, 100ms later one passes', async () => {
    const { clock, limiter } = virtualLimiter(tokenBucket({ capacity: 10, refillRate: 1, interval: '100ms' }))
    await limiter.consume('user:123') // some earlier use
    clock.now += 1000 // idle for 1s: the bucket refills to 10
    expect((await limiter.peek('user:123')).remaining).toBe(10)
    const first10 = await burst(limiter, 10)
    expect(first10.every((d) => d.allowed)).toBe(true)
    expect(first10.at(-1)!.remaining).toBe(0)
    const eleventh = await limiter.consume('user:123')
    expect(eleventh.allowed).toBe(false)
    expect(eleventh.retryAfterMs).toBe(100)
    clock.now += 100
    expect((await limiter.consume('user:123')).allowed).toBe(true)
    expect((await limiter.consume('user:123')).allowed).toBe(false)
  })
})

describe('fixed window: the boundary burst', () => {
  it('lets 100 requests at 12:00:59 and 100 at 12:01:01 all pass (2x the limit in 2 seconds)', async () => {
    const { clock, limiter } = virtualLimiter(fixedWindow({ limit: 100, window: '1m' }), at(12, 0, 59))
    expect((await burst(limiter, 100)).every((d) => d.allowed)).toBe(true)
    expect((await limiter.peek('user:123')).allowed).toBe(false)
    clock.now = at(12, 1, 1)
    expect((await burst(limiter, 100)).every((d) => d.allowed)).toBe(true)
    expect((await limiter.consume('user:123')).allowed).toBe(false)
  })

  it('counts requests per clock-aligned minute: the 101st in 12:00 is refused until 12:01:00', async () => {
    const { clock, limiter } = virtualLimiter(fixedWindow({ limit: 100, window: '1m' }), at(12, 0, 0))
    await burst(limiter, 100)
    clock.now = at(12, 0, 30)
    const refused = await limiter.consume('user:123')
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 30_000, resetMs: 30_000 })
    clock.now = at(12, 1, 0) - 1
    expect((await limiter.consume('user:123')).allowed).toBe(false)
    clock.now = at(12, 1, 0)
    expect((await limiter.consume('user:123')).allowed).toBe(true)
  })

  it('the sliding window log refuses the same boundary burst', async () => {
    const { clock, limiter } = virtualLimiter(slidingWindowLog({ limit: 100, window: '1m' }), at(12, 0, 59))
    expect((await burst(limiter, 100)).every((d) => d.allowed)).toBe(true)
    clock.now = at(12, 1, 1)
    const second = await burst(limiter, 100)
    expect(second.filter((d) => d.allowed)).toHaveLength(0)
    expect(second[0]!.retryAfterMs).toBe(58_000) // the first entry leaves the window at 12:01:59
  })
})

describe('sliding window log', () => {
  it('drops timestamps older than the window and counts what remains', async () => {
    const { clock, limiter } = virtualLimiter(slidingWindowLog({ limit: 3, window: '60s' }), at(12, 0, 58))
    await limiter.consume('k') // 12:00:58
    clock.now = at(12, 0, 59)
    await limiter.consume('k') // 12:00:59
    clock.now = at(12, 1, 0)
    await limiter.consume('k') // 12:01:00
    clock.now = at(12, 1, 30) // window starts 12:00:30: all three still count
    expect((await limiter.consume('k')).allowed).toBe(false)
    clock.now = at(12, 1, 58) // 12:00:58 has left the window
    expect((await limiter.consume('k')).allowed).toBe(true)
  })
})

describe('sliding window counter: the estimate', () => {
  it('previous 84, current 18, 30% into the window: 18 + 84 * 0.7 = 76.8, allowed', async () => {
    const { clock, limiter } = virtualLimiter(
      slidingWindowCounter({ limit: 100, window: '1m' }),
      at(12, 0, 0),
    )
    await burst(limiter, 84)
    clock.now = at(12, 1, 17) // the current window's 18 arrive once enough of the previous has decayed
    expect((await burst(limiter, 18)).every((d) => d.allowed)).toBe(true)
    clock.now = at(12, 1, 18) // 30% into 12:01
    const peek = await limiter.peek('user:123')
    expect(peek.allowed).toBe(true)
    expect(peek.remaining).toBe(23) // floor(100 - 76.8)
    const d = await limiter.consume('user:123')
    expect(d.allowed).toBe(true)
    expect(d.remaining).toBe(22) // floor(100 - 77.8)
  })

  it('previous 80, current 30, 40% into the window: 30 + 80 * 0.6 = 78', async () => {
    const { clock, limiter } = virtualLimiter(
      slidingWindowCounter({ limit: 100, window: '1m' }),
      at(12, 0, 0),
    )
    await burst(limiter, 80)
    clock.now = at(12, 1, 23)
    expect((await burst(limiter, 30)).every((d) => d.allowed)).toBe(true)
    clock.now = at(12, 1, 24) // 40% into 12:01
    expect((await limiter.peek('user:123')).remaining).toBe(22) // 100 - 78
    // 22 more fit exactly (estimate reaches 100); the 23rd is refused.
    expect((await burst(limiter, 22)).every((d) => d.allowed)).toBe(true)
    const refused = await limiter.consume('user:123')
    expect(refused.allowed).toBe(false)
    // prev's weight must fall by 1/80: 60s / 80 = 750 ms later.
    expect(refused.retryAfterMs).toBe(750)
  })

  it('smooths the fixed-window boundary burst', async () => {
    const { clock, limiter } = virtualLimiter(
      slidingWindowCounter({ limit: 100, window: '1m' }),
      at(12, 0, 59),
    )
    await burst(limiter, 100)
    clock.now = at(12, 1, 1)
    const passed = (await burst(limiter, 100)).filter((d) => d.allowed).length
    expect(passed).toBe(1) // 100 * (1 - 1/60) = 98.33: one more fits
  })
})

describe('leaky bucket: size 10, leaking 1 request / 100ms', () => {
  it('police: a burst of 10 passes, the 11th is dropped', async () => {
    const { clock, limiter } = virtualLimiter(leakyBucket({ capacity: 10, leakRate: 1, interval: '100ms' }))
    const decisions = await burst(limiter, 11)
    expect(decisions.slice(0, 10).every((d) => d.allowed && d.delayMs === 0)).toBe(true)
    expect(decisions[10]).toMatchObject({ allowed: false, retryAfterMs: 100 })
    clock.now += 100
    expect((await limiter.consume('user:123')).allowed).toBe(true)
  })

  it('shape: a burst of 10 is queued and released one per 100ms; the 11th is dropped', async () => {
    const { limiter } = virtualLimiter(
      leakyBucket({ capacity: 10, leakRate: 1, interval: '100ms', mode: 'shape' }),
    )
    const decisions = await burst(limiter, 11)
    expect(decisions.slice(0, 10).map((d) => d.delayMs)).toEqual([
      0, 100, 200, 300, 400, 500, 600, 700, 800, 900,
    ])
    expect(decisions[10]!.allowed).toBe(false)
  })

  it('shape: output never exceeds 1 request / 100ms, whatever the input', async () => {
    const { clock, limiter } = virtualLimiter(
      leakyBucket({ capacity: 10, leakRate: 1, interval: '100ms', mode: 'shape' }),
    )
    const releases: number[] = []
    for (let t = 0; t < 3000; t += 7) {
      clock.now = t
      for (let i = 0; i < 3; i++) {
        const d = await limiter.consume('k')
        if (d.allowed) releases.push(t + d.delayMs)
      }
    }
    releases.sort((a, b) => a - b)
    for (let i = 1; i < releases.length; i++)
      expect(releases[i]! - releases[i - 1]!).toBeGreaterThanOrEqual(100)
  })
})
