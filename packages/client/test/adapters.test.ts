// The client against real servers built with our three adapters, in every header mode. Time is virtual:
// the client's `sleep` moves the clock the server reads, so every wait is exact and nothing sleeps.
import { fixedWindow } from '@floodgate/core'
import { afterEach, describe, expect, it } from 'vitest'
import { retryBudget } from '../src/budget.js'
import { createFetch } from '../src/fetch.js'
import type { HeaderMode } from '../src/headers/types.js'
import type { RetryEvent } from '../src/options.js'
import { ADAPTERS, type Adapter, adapterServer, START, type TestServer, virtualTime } from './servers.js'

const MODES: readonly HeaderMode[] = ['draft-6', 'draft-7', 'draft-8', 'legacy']

let servers: TestServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

/** 2 requests per 10 s window; the clock 3 s into a window, so a refusal says `Retry-After: 7`. */
async function setup(adapter: Adapter, headers: HeaderMode = 'draft-6') {
  const time = virtualTime(START + 3_000)
  const server = await adapterServer(adapter, time.clock, {
    algorithm: fixedWindow({ limit: 2, window: '10s' }),
    headers,
  })
  servers.push(server)
  /** Another client that spends the window's quota whenever it is back (plain fetch, no retries). */
  const rival = async () => {
    for (let i = 0; i < 2; i++) await (await fetch(server.url)).arrayBuffer()
  }
  /** A sleep after which the rival takes the fresh quota first: the retry is refused again. */
  const sleepThenRival = async (ms: number) => {
    await time.sleep(ms)
    await rival()
  }
  return { ...time, server, rival, sleepThenRival }
}

describe.each(ADAPTERS)('%s', (adapter) => {
  describe.each(MODES)('headers: %s', (mode) => {
    it('a 429: waits Retry-After plus the jitter, then succeeds', async () => {
      const { server, now, sleep, sleeps } = await setup(adapter, mode)
      const events: RetryEvent[] = []
      const politeFetch = createFetch({ now, sleep, random: () => 0.5, onRetry: (e) => events.push(e) })
      for (let i = 0; i < 3; i++) expect((await politeFetch(server.url)).status).toBe(200)
      expect(server.statuses).toEqual([200, 200, 429, 200])
      // Retry-After: 7, plus full jitter drawn at 0.5 below min(30 s, 2 s * 2^1).
      expect(sleeps).toEqual([7_000 + 2_000])
      expect(events).toHaveLength(1)
      expect(events[0]).toMatchObject({
        attempt: 1,
        status: 429,
        method: 'GET',
        serverWaitMs: 7_000,
        delayMs: 9_000,
      })
      const policy = events[0]!.info.policies.find((p) => p.mode === mode)
      expect(policy).toMatchObject({ limit: 2, remaining: 0, name: mode === 'draft-8' ? 'ip' : undefined })
    })

    it('pace: at remaining 0, holds the next request back until the reset instead of being refused', async () => {
      const { server, now, sleep, sleeps } = await setup(adapter, mode)
      const politeFetch = createFetch({ now, sleep, pace: true })
      for (let i = 0; i < 3; i++) expect((await politeFetch(server.url)).status).toBe(200)
      expect(server.statuses).toEqual([200, 200, 200])
      expect(sleeps).toHaveLength(1)
      // The window ends 7 s on; the server may round its reset up to a whole second.
      expect(sleeps[0]).toBeGreaterThanOrEqual(7_000)
      expect(sleeps[0]).toBeLessThanOrEqual(8_000)
    })
  })

  it('gives up after maxAttempts and returns the last response, body and all', async () => {
    const { server, now, sleeps, rival, sleepThenRival: sleep } = await setup(adapter)
    const politeFetch = createFetch({ now, sleep, maxAttempts: 3 })
    await rival()
    const res = await politeFetch(server.url)
    expect(res.status).toBe(429)
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(await res.json()).toMatchObject({ error: 'rate_limited' })
    expect(server.statuses).toEqual([200, 200, 429, 200, 200, 429, 200, 200, 429])
    expect(sleeps).toHaveLength(2)
  })

  it('respects the retry budget: once it is spent, a refusal is returned at once', async () => {
    const { server, now, sleeps, rival, sleepThenRival: sleep } = await setup(adapter)
    const budget = retryBudget({ capacity: 10, retryCost: 5 })
    const politeFetch = createFetch({ now, sleep, maxAttempts: 10, budget })
    await rival()
    expect((await politeFetch(server.url)).status).toBe(429)
    expect(sleeps).toHaveLength(2)
    expect(budget.tokens).toBe(0)
    expect((await politeFetch(server.url)).status).toBe(429)
    expect(sleeps).toHaveLength(2)
    const clientRequests = server.statuses.filter((s) => s === 429)
    expect(clientRequests).toHaveLength(4)
  })

  it('a POST is not retried; a POST with an Idempotency-Key is', async () => {
    const { server, now, sleep, sleeps, rival } = await setup(adapter)
    const politeFetch = createFetch({ now, sleep })
    await rival()
    expect((await politeFetch(server.url, { method: 'POST', body: 'x' })).status).toBe(429)
    expect(sleeps).toHaveLength(0)
    const res = await politeFetch(server.url, {
      method: 'POST',
      body: 'x',
      headers: { 'Idempotency-Key': 'k1' },
    })
    expect(res.status).toBe(200)
    expect(sleeps).toHaveLength(1)
  })
})
