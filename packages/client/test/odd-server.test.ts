// The client against a plain node:http server that sends what other servers send, odd headers included.
import type { ServerResponse } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { createFetch } from '../src/fetch.js'
import type { RetryEvent } from '../src/options.js'
import { plainServer, START, type TestServer, virtualTime } from './servers.js'

let servers: TestServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

/** A server that refuses the first `refusals` requests with `headers`, then answers 200. */
async function refusing(refusals: number, headers: Record<string, string>, status = 429) {
  const server = await plainServer((_req, res: ServerResponse, n) => {
    if (n < refusals) {
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end('slow down')
    } else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
  })
  servers.push(server)
  return server
}

async function run(
  headers: Record<string, string>,
  options: Parameters<typeof createFetch>[0] = {},
  status = 429,
) {
  const server = await refusing(1, headers, status)
  const time = virtualTime()
  const events: RetryEvent[] = []
  const politeFetch = createFetch({
    now: time.now,
    sleep: time.sleep,
    random: () => 0.5,
    onRetry: (e) => events.push(e),
    ...options,
  })
  const res = await politeFetch(server.url)
  return { res, server, events, sleeps: time.sleeps }
}

describe('odd servers', () => {
  it('Retry-After as an HTTP-date', async () => {
    const date = new Date(START + 12_000).toUTCString()
    const { res, sleeps } = await run({ 'Retry-After': date })
    expect(res.status).toBe(200)
    expect(sleeps).toEqual([12_000 + 2_000])
  })

  it('Retry-After as a date in the past: just the backoff', async () => {
    const { res, sleeps, events } = await run({ 'Retry-After': 'Sun, 06 Nov 1994 08:49:37 GMT' })
    expect(res.status).toBe(200)
    expect(events[0]!.serverWaitMs).toBe(0)
    expect(sleeps).toEqual([2_000])
  })

  it.each(['-30', 'soon', 'NaN', '1e3'])('Retry-After: %s is ignored: the backoff', async (value) => {
    const { res, sleeps, events } = await run({ 'Retry-After': value })
    expect(res.status).toBe(200)
    expect(events[0]!.serverWaitMs).toBeUndefined()
    expect(sleeps).toEqual([2_000])
  })

  it('Retry-After of a day (or a hostile 10^11 seconds): the refusal is returned at once, nothing waits', async () => {
    for (const value of ['86400', '99999999999']) {
      const { res, sleeps, server } = await run({ 'Retry-After': value })
      expect(res.status).toBe(429)
      expect(await res.text()).toBe('slow down')
      expect(sleeps).toEqual([])
      expect(server.statuses).toEqual([429])
    }
  })

  it('maxRetryAfter raises the longest wait', async () => {
    const { res, sleeps } = await run({ 'Retry-After': '300' }, { maxRetryAfter: '10m' })
    expect(res.status).toBe(200)
    expect(sleeps).toEqual([302_000])
  })

  it('a 503 without Retry-After: exponential backoff with full jitter', async () => {
    const server = await refusing(2, {}, 503)
    const time = virtualTime()
    const draws = [0.25, 0.75]
    const politeFetch = createFetch({ now: time.now, sleep: time.sleep, random: () => draws.shift()! })
    expect((await politeFetch(server.url)).status).toBe(200)
    // random(0, 4 s) at 0.25, then random(0, 8 s) at 0.75.
    expect(time.sleeps).toEqual([1_000, 6_000])
  })

  it("GitHub's refusal: no Retry-After, X-RateLimit-Remaining 0 and an epoch reset: waits for the reset", async () => {
    const reset = String((START + 42_000) / 1000)
    const { res, sleeps, events } = await run({ 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': reset })
    expect(res.status).toBe(200)
    expect(events[0]!.serverWaitMs).toBe(42_000)
    expect(sleeps).toEqual([44_000])
  })

  it('@fastify/rate-limit style: X-RateLimit-Reset as delta seconds', async () => {
    const { events } = await run({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '9' })
    expect(events[0]!.serverWaitMs).toBe(9_000)
  })

  it('draft-8 with several policies: waits for the one at 0', async () => {
    const { res, events } = await run({
      'RateLimit-Policy': '"burst";q=10;w=1, "day";q=1000;w=86400',
      RateLimit: '"burst";r=4;t=1, "day";r=0;t=20',
    })
    expect(res.status).toBe(200)
    expect(events[0]!.serverWaitMs).toBe(20_000)
    expect(events[0]!.info.policies.map((p) => p.name)).toEqual(['burst', 'day'])
  })

  it("jitter: 'none' waits exactly Retry-After", async () => {
    const { sleeps } = await run({ 'Retry-After': '5' }, { jitter: 'none' })
    expect(sleeps).toEqual([5_000])
  })

  it('a status not in retryOn is returned as it is; retryOn adds more', async () => {
    const plain = await run({ 'Retry-After': '1' }, {}, 502)
    expect(plain.res.status).toBe(502)
    expect(plain.sleeps).toEqual([])
    const more = await run({ 'Retry-After': '1' }, { retryOn: [502] }, 502)
    expect(more.res.status).toBe(200)
  })
})
