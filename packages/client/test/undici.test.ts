// The undici interceptor against real servers (our adapters, and a plain node:http one), through
// `Agent.compose`, `request()` and undici's `fetch`. Time is virtual, as in the fetch tests.
import { Readable } from 'node:stream'
import { fixedWindow } from '@floodgate/core'
import { Agent, request, fetch as undiciFetch } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { retryBudget } from '../src/budget.js'
import { createFetch } from '../src/fetch.js'
import type { ClientOptions, RetryEvent } from '../src/options.js'
import { createInterceptor } from '../src/undici.js'
import {
  ADAPTERS,
  adapterServer,
  plainServer,
  START,
  stuckSleep,
  type TestServer,
  virtualTime,
} from './servers.js'

let servers: TestServer[] = []
let agents: Agent[] = []
afterEach(async () => {
  await Promise.all(agents.map((a) => a.close()))
  await Promise.all(servers.map((s) => s.close()))
  servers = []
  agents = []
})

function politeAgent(options: ClientOptions) {
  const agent = new Agent()
  agents.push(agent)
  return agent.compose(createInterceptor(options))
}

describe.each(ADAPTERS)('%s', (adapter) => {
  it.each(['draft-6', 'draft-7', 'draft-8', 'legacy'])(
    'headers %s: waits Retry-After plus jitter, then succeeds',
    async (headers) => {
      const time = virtualTime(START + 3_000)
      const server = await adapterServer(adapter, time.clock, {
        algorithm: fixedWindow({ limit: 2, window: '10s' }),
        headers,
      })
      servers.push(server)
      const events: RetryEvent[] = []
      const dispatcher = politeAgent({
        now: time.now,
        sleep: time.sleep,
        random: () => 0.5,
        onRetry: (e) => events.push(e),
      })
      for (let i = 0; i < 3; i++) {
        const res = await request(server.url, { dispatcher })
        expect(res.statusCode).toBe(200)
        expect(await res.body.json()).toEqual({ ok: true })
      }
      expect(server.statuses).toEqual([200, 200, 429, 200])
      expect(time.sleeps).toEqual([9_000])
      expect(events[0]).toMatchObject({ attempt: 1, status: 429, serverWaitMs: 7_000, url: `${server.url}/` })
    },
  )
})

/** Refuses the first `refusals` requests (Retry-After: 5), then 200 with the body it received. */
async function echoServer(refusals = 1) {
  const bodies: string[] = []
  const server = await plainServer((req, res, n) => {
    let body = ''
    req.on('data', (c) => {
      body += c
    })
    req.on('end', () => {
      bodies.push(body)
      if (n < refusals)
        res.writeHead(429, { 'retry-after': '5', 'content-type': 'application/json' }).end('{"refused":true}')
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(`got ${body}`)
    })
  })
  servers.push(server)
  return { ...server, bodies }
}

describe('createInterceptor', () => {
  it('gives up after maxAttempts and hands over the last response, body and all', async () => {
    const server = await echoServer(10)
    const time = virtualTime()
    const dispatcher = politeAgent({ now: time.now, sleep: time.sleep, maxAttempts: 3 })
    const res = await request(server.url, { dispatcher })
    expect(res.statusCode).toBe(429)
    expect(res.headers['retry-after']).toBe('5')
    expect(await res.body.json()).toEqual({ refused: true })
    expect(server.statuses).toEqual([429, 429, 429])
    expect(time.sleeps).toHaveLength(2)
  })

  it('one retry budget shared with createFetch: once fetch has spent it, the interceptor returns refusals', async () => {
    const server = await echoServer(100)
    const time = virtualTime()
    const budget = retryBudget({ capacity: 10, retryCost: 5 })
    const politeFetch = createFetch({ now: time.now, sleep: time.sleep, budget, maxAttempts: 10 })
    expect((await politeFetch(server.url)).status).toBe(429)
    expect(budget.tokens).toBe(0)
    const dispatcher = politeAgent({ now: time.now, sleep: time.sleep, budget, maxAttempts: 10 })
    const res = await request(server.url, { dispatcher })
    expect(res.statusCode).toBe(429)
    await res.body.dump()
    expect(server.statuses).toHaveLength(4)
    expect(time.sleeps).toHaveLength(2)
  })

  it("works under undici's fetch (dispatcher option)", async () => {
    const server = await echoServer()
    const time = virtualTime()
    const dispatcher = politeAgent({ now: time.now, sleep: time.sleep, random: () => 0 })
    const res = await undiciFetch(server.url, { dispatcher })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('got ')
    expect(time.sleeps).toEqual([5_000])
  })

  it('sends a Buffer body again; a POST only with an Idempotency-Key', async () => {
    const server = await echoServer(2)
    const time = virtualTime()
    const dispatcher = politeAgent({ now: time.now, sleep: time.sleep })
    const post = await request(server.url, { dispatcher, method: 'POST', body: 'one' })
    expect(post.statusCode).toBe(429)
    await post.body.dump()
    const keyed = await request(server.url, {
      dispatcher,
      method: 'POST',
      body: Buffer.from('two'),
      headers: { 'idempotency-key': 'abc' },
    })
    expect(keyed.statusCode).toBe(200)
    expect(await keyed.body.text()).toBe('got two')
    expect(server.bodies).toEqual(['one', 'two', 'two'])
  })

  it('never retries a request whose body is a stream', async () => {
    const server = await echoServer()
    const time = virtualTime()
    const dispatcher = politeAgent({ now: time.now, sleep: time.sleep })
    const res = await request(server.url, { dispatcher, method: 'PUT', body: Readable.from(['stre', 'am']) })
    expect(res.statusCode).toBe(429)
    expect(await res.body.json()).toEqual({ refused: true })
    expect(server.bodies).toEqual(['stream'])
    expect(time.sleeps).toEqual([])
  })

  it('honours the AbortSignal during the wait: rejects, and sends nothing more', async () => {
    const server = await echoServer()
    const controller = new AbortController()
    const { sleep, entered } = stuckSleep()
    const dispatcher = politeAgent({ sleep })
    const pending = request(server.url, { dispatcher, signal: controller.signal })
    await entered
    controller.abort(new Error('user left'))
    await expect(pending).rejects.toThrow('user left')
    expect(server.statuses).toEqual([429])
  })

  it('pace: holds a request back while the origin is at 0, abortable too', async () => {
    const server = await plainServer((_req, res) => {
      res.writeHead(200, { 'ratelimit-remaining': '0', 'ratelimit-reset': '30' }).end('ok')
    })
    servers.push(server)
    const time = virtualTime()
    const dispatcher = politeAgent({ now: time.now, sleep: time.sleep, pace: true })
    await (await request(server.url, { dispatcher })).body.dump()
    await (await request(server.url, { dispatcher })).body.dump()
    expect(time.sleeps).toEqual([30_000])

    const stuck = politeAgent({ now: time.now, sleep: stuckSleep().sleep, pace: true })
    await (await request(server.url, { dispatcher: stuck })).body.dump()
    const controller = new AbortController()
    const pending = request(server.url, { dispatcher: stuck, signal: controller.signal })
    controller.abort(new Error('not waiting'))
    await expect(pending).rejects.toThrow('not waiting')
    expect(server.statuses).toHaveLength(3)
  })
})
